package dev.exactly.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.exactly.testing.LogCapture;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.net.URL;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Readiness follows the database the service uses: after a crash and restart of PostgreSQL,
 * once a push is answered again, {@code /q/health/ready} answers UP, from its first probe on. A
 * readiness check that validates a connection the crash left dead in some idle pool (Agroal's
 * check of Flyway's JDBC datasource did: one DOWN per dead pooled connection, i.e. one probe
 * interval each, 20 s behind the database at a 10 s probe period) is not following the database.
 * The check list names no JDBC datasource check; the reactive pool, which pushes use, is checked by
 * the service's own "database" check (the reactive client's own check is off: it waits up to 20 s).
 */
@QuarkusTest
@TestProfile(RestartablePostgresProfile.class)
class ReadinessAfterOutageTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Name of quarkus-agroal's check of the JDBC datasource in /q/health. */
    private static final String JDBC_CHECK = "Database connections health check";

    /** Name of the reactive PostgreSQL client's own check in /q/health (replaced: it waits up to 20 s). */
    private static final String REACTIVE_CHECK = "Reactive PostgreSQL connections health check";

    /** Name of the service's check of the database its pushes use (dev.exactly.db.DatabaseReadiness). */
    private static final String DATABASE_CHECK = "database";

    @TestHTTPResource("/")
    URL base;

    private final RestartablePostgres pg = RestartablePostgres.shared();

    @AfterEach
    void databaseBack() {
        pg.start();
    }

    private ServiceHttp service() {
        return new ServiceHttp(base);
    }

    private HttpResponse<String> ready() throws Exception {
        return service().send("GET", "/q/health/ready", null);
    }

    private HttpResponse<String> migrate() throws Exception {
        return service().send("POST", "/api/v1/admin/migrate", null);
    }

    @Test
    void readinessIsUpAsSoonAsPushesAreAnsweredAgain() throws Exception {
        String q = "readiness-" + UUID.randomUUID();
        ServiceHttp service = service();
        assertEquals(200, service.push(q, "before"));
        HttpResponse<String> before = ready();
        assertEquals(200, before.statusCode(), before.body());
        assertTrue(before.body().contains("\"" + DATABASE_CHECK + "\""), before.body());

        pg.crash();
        assertEquals(503, service.push(q, "during"));
        assertEquals(503, ready().statusCode());
        pg.start();

        // the pool reconnects by itself: a bounded wait for the first answered push
        assertEquals(200, service.pushUntilAnswered(q, "after", Duration.ofSeconds(30)),
                "pushes are answered again after the restart");

        // from then on every readiness probe says UP, the first one included
        List<String> downs = new ArrayList<>();
        for (int probe = 0; probe < 3; probe++) {
            HttpResponse<String> r = ready();
            if (r.statusCode() != 200) {
                downs.add("probe " + probe + ": " + r.body());
            }
        }
        assertEquals(List.of(), downs, "readiness lags behind the database");

        JsonNode checks = JSON.readTree(ready().body()).get("checks");
        List<String> names = new ArrayList<>();
        checks.forEach(c -> names.add(c.get("name").asText()));
        assertTrue(names.contains(DATABASE_CHECK), names.toString());
        assertFalse(names.contains(REACTIVE_CHECK), names.toString());
        assertFalse(names.contains(JDBC_CHECK), names.toString());
    }

    /**
     * Flyway's JDBC datasource keeps no connection the crash could leave dead: the first migrate
     * call after the database is back succeeds (before, Agroal lent an idle connection from
     * before the crash, untested, and the call failed once with a 500), and nothing is left for
     * Agroal's background validation to find dead and close with a WARN ("Closing connection in
     * incorrect state VALIDATION", two minutes after each outage at its default interval); during
     * the outage the call is a 503.
     */
    @Test
    void theFirstMigrateAfterAnOutageSucceeds() throws Exception {
        String q = "migrate-" + UUID.randomUUID();
        HttpResponse<String> warm = migrate();
        assertEquals(200, warm.statusCode(), warm.body());
        try (LogCapture log = LogCapture.open()) {
            pg.crash();
            // while the database is away the call is a 503 to retry, as its documentation says, not a 500
            HttpResponse<String> away = migrate();
            assertEquals(503, away.statusCode(), away.body());
            assertTrue(away.body().contains("/problems/unavailable"), away.body());
            pg.start();
            assertEquals(200, service().pushUntilAnswered(q, "after", Duration.ofSeconds(30)),
                    "pushes are answered again after the restart");
            // three validation rounds of the JDBC datasource
            Thread.sleep(3 * RestartablePostgresProfile.VALIDATION_INTERVAL.toMillis() + 500);
            List<String> agroal = log.records().stream()
                    .filter(r -> r.getLoggerName().startsWith("io.agroal") && r.getLevel().intValue() >= Level.WARNING.intValue())
                    .map(r -> r.getLevel() + " " + r.getFormattedMessage()).toList();
            assertEquals(List.of(), agroal, "the JDBC datasource kept connections the crash left dead");
        }
        HttpResponse<String> first = migrate();
        assertEquals(200, first.statusCode(), first.body());
    }
}
