package dev.exactly.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.exactly.testing.Api;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The service while its database is stopped, crashed and restarted: it answers 503 problem+json
 * with Retry-After while the database is away, its pool reconnects by itself once it is back
 * (the application is not restarted), and clients that retried the same transactionIds end with
 * every id stored once and consistent answers.
 */
@QuarkusTest
@TestProfile(RestartablePostgresProfile.class)
class DatabaseOutageHttpTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TestHTTPResource("/")
    URL base;

    @jakarta.inject.Inject
    io.micrometer.core.instrument.MeterRegistry registry;

    private final HttpClient http = HttpClient.newHttpClient();
    private final RestartablePostgres pg = RestartablePostgres.shared();

    @AfterEach
    void databaseBack() {
        pg.start();
    }

    private HttpResponse<String> send(String method, String path, String body) throws Exception {
        return new ServiceHttp(base).send(method, path, body);
    }

    private static void assertUnavailable(HttpResponse<String> r) throws Exception {
        assertEquals(503, r.statusCode(), r.body());
        assertTrue(r.headers().firstValue("Retry-After").isPresent(), "Retry-After");
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json"));
        assertEquals("/problems/unavailable", JSON.readTree(r.body()).get("type").asText());
    }

    private static String body(String queue, String... txns) {
        StringBuilder b = new StringBuilder("{\"items\":[");
        for (int i = 0; i < txns.length; i++) {
            b.append(i == 0 ? "" : ",").append("{\"queue\":\"").append(queue).append("\",\"transactionId\":\"")
                    .append(txns[i]).append("\",\"payload\":").append(i).append('}');
        }
        return b.append("]}").toString();
    }

    /** Clients keep pushing (retrying the same requests) while {@code fault} runs; then the audit. */
    private PushLedger.Audit clientsThrough(String queue, Fault.Action fault) throws Exception {
        PushLedger ledger = new PushLedger();
        PushTraffic traffic = new PushTraffic(new String[] {queue}, new String[] {"p0", "p1", "p2"}, ledger);
        HttpPush op = new HttpPush(http, URI.create(base.toString()), Api.TEST_API_KEY, traffic,
                System.currentTimeMillis() + 180_000, 200);
        SoakStats stats = new SoakStats();
        List<CompletableFuture<Void>> clients = new ArrayList<>();
        java.util.concurrent.atomic.AtomicBoolean faultOver = new java.util.concurrent.atomic.AtomicBoolean();
        for (int c = 0; c < 6; c++) {
            Random rnd = new Random(c);
            clients.add(CompletableFuture.runAsync(() -> {
                // at least 15 pushes each, and on until the fault is over: a fast machine must not
                // finish its pushes before the fault begins
                for (int i = 0; i < 15 || !faultOver.get(); i++) {
                    try {
                        op.run(rnd, stats);
                    } catch (Exception e) {
                        stats.error(e.toString());
                    }
                }
            }));
        }
        try {
            fault.inject();
        } finally {
            faultOver.set(true);
        }
        CompletableFuture.allOf(clients.toArray(new CompletableFuture[0])).get(300, TimeUnit.SECONDS);
        PushLedger.Audit audit;
        try (Connection c = pg.connect(RestartablePostgresProfile.DATABASE)) {
            audit = ledger.audit(c, traffic.queues());
        }
        System.out.println("[reliability] http clients through an outage: " + stats.report().replace('\n', ';') + "; " + audit.line());
        assertEquals(0, stats.errors(), stats.firstErrors());
        assertTrue(stats.transients() > 0, "the clients never saw the outage");
        assertEquals(0, audit.lost(), "lost");
        assertEquals(0, audit.duplicated(), "duplicated");
        assertEquals(0, audit.inconsistent(), "inconsistent");
        assertEquals(0, audit.phantom(), "phantom");
        assertEquals(0, audit.unanswered(), "unanswered");
        assertTrue(stats.operations() >= 6 * 15, "pushes made: " + stats.operations());
        return audit;
    }

    @Test
    void stoppedDatabase503WithRetryAfterThenRecoversByItself() throws Exception {
        String q = "outage-" + UUID.randomUUID();
        HttpResponse<String> before = send("POST", "/api/v1/push", body(q, "a-1", "a-2"));
        assertEquals(200, before.statusCode(), before.body());
        JsonNode first = JSON.readTree(before.body());

        pg.stop();
        assertUnavailable(send("POST", "/api/v1/push", body(q, "a-1", "a-3")));
        assertUnavailable(send("POST", "/api/v1/configure", "{\"queue\":\"" + q + "\",\"options\":{}}"));
        assertUnavailable(send("GET", "/api/v1/queues/" + q, null));
        assertUnavailable(send("GET", "/api/v1/messages/" + first.at("/results/0/messageId").asText(), null));

        // clients start while the database is down and ride it out; it comes back on the same port
        clientsThrough(q + "-load", () -> {
            Thread.sleep(1500);
            pg.start();
        });

        // the same application (its pool reconnected by itself) answers as before the outage
        JsonNode after = JSON.readTree(send("POST", "/api/v1/push", body(q, "a-1", "a-2", "a-3")).body());
        assertEquals("duplicate", after.at("/results/0/status").asText());
        assertEquals(first.at("/results/0/messageId"), after.at("/results/0/messageId"));
        assertEquals(first.at("/results/1/messageId"), after.at("/results/1/messageId"));
        assertEquals("queued", after.at("/results/2/status").asText());
    }

    /**
     * While the database is away every request fails the same way; the log gets one WARN of it a
     * minute (not one per request, hundreds a second under load), and the Micrometer counter
     * exactly.database.failures counts every one.
     */
    @Test
    void anOutageLogsOneLineAMinuteAndCountsEveryFailedRequest() throws Exception {
        String q = "outage-log-" + UUID.randomUUID();
        assertEquals(200, send("POST", "/api/v1/push", body(q, "x-0")).statusCode());
        double before = failures("unavailable");
        pg.stop();
        try (dev.exactly.testing.LogCapture log = dev.exactly.testing.LogCapture.open()) {
            for (int i = 1; i <= 40; i++) {
                assertUnavailable(send("POST", "/api/v1/push", body(q, "x-" + i)));
            }
            List<String> warnings = log.records().stream()
                    .filter(r -> r.getLevel().intValue() >= java.util.logging.Level.WARNING.intValue())
                    .map(r -> r.getLoggerName() + " " + r.getFormattedMessage())
                    .filter(m -> m.contains("unavailable")).toList();
            assertTrue(warnings.size() <= 1, "one line a minute at most: " + warnings);
        }
        assertEquals(40.0, failures("unavailable") - before, "every failed request is counted");
    }

    private double failures(String kind) {
        io.micrometer.core.instrument.Counter c = registry.find("exactly.database.failures").tag("kind", kind).counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void databaseCrashedUnderLoadThenRestarted() throws Exception {
        clientsThrough("crash-" + UUID.randomUUID(), () -> {
            Thread.sleep(500);
            pg.crash();
            Thread.sleep(1000);
            pg.start();
        });
    }
}
