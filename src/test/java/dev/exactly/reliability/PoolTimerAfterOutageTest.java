package dev.exactly.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.LogCapture;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.net.URL;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.logging.Filter;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A query run straight on the Vert.x pool that fails because PostgreSQL is down leaves the pool's
 * connection-timeout timer of that query armed; 30 s later it fails the already failed promise and
 * Vert.x reports an uncaught {@code IllegalStateException: Result is already complete}
 * (eclipse-vertx/vertx-sql-client issue 1706). The service no longer runs queries that way: every
 * operation borrows its connection (dev.exactly.db.BorrowedConnections), a path without that
 * timer. This test crashes PostgreSQL under a push, waits out the timer and finds no such record
 * in the log; the console handler's filter (dev.exactly.db.PoolTimerDoubleFailFilter,
 * quarkus.log.console.filter) stays for a query that might still take the pool's direct path, and
 * still drops only those records.
 */
@QuarkusTest
@TestProfile(RestartablePostgresProfile.class)
class PoolTimerAfterOutageTest {

    /** Vert.x's PoolOptions default connection timeout (Quarkus has no key for it), plus margin. */
    private static final Duration TIMER = Duration.ofSeconds(36);

    @TestHTTPResource("/")
    URL base;

    private final RestartablePostgres pg = RestartablePostgres.shared();

    @AfterEach
    void databaseBack() {
        pg.start();
    }

    private static boolean isTimerDoubleFail(LogRecord r) {
        for (Throwable t = r.getThrown(); t != null; t = t.getCause()) {
            if (t instanceof IllegalStateException && "Result is already complete".equals(t.getMessage())) {
                return true;
            }
        }
        return false;
    }

    @Test
    void noLateDoubleFailureOfThePoolsTimerAfterAnOutage() throws Exception {
        Filter console = LogCapture.consoleHandler().getFilter();
        assertTrue(console != null, "the console handler has a filter (quarkus.log.console.filter)");
        ServiceHttp service = new ServiceHttp(base);
        List<LogRecord> late;
        try (LogCapture capture = LogCapture.open()) {
            String q = "timer-" + UUID.randomUUID();
            assertEquals(200, service.push(q, "before"));
            pg.crash();
            assertEquals(503, service.push(q, "during"));
            long failedAt = System.nanoTime();
            pg.start();
            while (System.nanoTime() - failedAt < TIMER.toNanos()) {
                Thread.sleep(500);
            }
            assertEquals(200, service.push(q, "after"));
            late = capture.records().stream().filter(PoolTimerAfterOutageTest::isTimerDoubleFail)
                    .map(r -> (LogRecord) r).toList();
        }
        assertEquals(List.of(), late.stream().map(LogRecord::getMessage).toList(),
                "a late double failure of the pool's timer: a query ran straight on the pool");
        LogRecord other = new LogRecord(Level.SEVERE, "Uncaught exception received by Vert.x");
        other.setThrown(new IllegalStateException("something else"));
        assertTrue(console.isLoggable(other), "another uncaught exception still reaches the console");
    }
}
