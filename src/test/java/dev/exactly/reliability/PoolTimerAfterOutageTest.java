package dev.exactly.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.Api;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.UUID;
import java.util.logging.Filter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.jboss.logmanager.ExtHandler;
import org.jboss.logmanager.ExtLogRecord;
import org.jboss.logmanager.LogContext;
import org.jboss.logmanager.Logger;
import org.jboss.logmanager.handlers.ConsoleHandler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * After a push that failed because PostgreSQL was down, the Vert.x pool's connection-timeout
 * timer of that query still fires 30 s later and fails the already failed promise; Vert.x reports
 * an uncaught {@code IllegalStateException: Result is already complete} (eclipse-vertx/vertx-sql-client
 * issue 1706). This test makes that happen for real and checks that the console handler's filter
 * (dev.exactly.db.PoolTimerDoubleFailFilter, quarkus.log.console.filter) drops exactly those
 * records and lets another ERROR through. When a Vert.x upgrade fixes the timer, no such record
 * appears, this test fails, and the filter can go.
 */
@QuarkusTest
@TestProfile(RestartablePostgresProfile.class)
class PoolTimerAfterOutageTest {

    /** Vert.x's PoolOptions default connection timeout (Quarkus has no key for it), plus margin. */
    private static final Duration TIMER = Duration.ofSeconds(36);

    @TestHTTPResource("/")
    URL base;

    private final HttpClient http = HttpClient.newHttpClient();
    private final RestartablePostgres pg = RestartablePostgres.shared();

    /** Keeps every record that reaches the root logger, before any handler's filter. */
    static final class Capture extends ExtHandler {
        final List<ExtLogRecord> records = Collections.synchronizedList(new ArrayList<>());

        @Override
        protected void doPublish(ExtLogRecord record) {
            records.add(record);
        }
    }

    @AfterEach
    void databaseBack() {
        pg.start();
    }

    private static Filter consoleFilter() {
        Deque<Handler> todo = new ArrayDeque<>(List.of(LogContext.getLogContext().getLogger("").getHandlers()));
        while (!todo.isEmpty()) {
            Handler h = todo.pop();
            if (h instanceof ConsoleHandler) {
                return h.getFilter();
            }
            if (h instanceof ExtHandler e) {
                todo.addAll(List.of(e.getHandlers()));
            }
        }
        throw new AssertionError("no console handler");
    }

    private int push(String queue, String transactionId) throws Exception {
        String body = "{\"items\":[{\"queue\":\"" + queue + "\",\"transactionId\":\"" + transactionId + "\",\"payload\":{}}]}";
        return http.send(HttpRequest.newBuilder(URI.create(base.toString()).resolve("/api/v1/push"))
                .timeout(Duration.ofSeconds(60)).header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + Api.TEST_API_KEY)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString()).statusCode();
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
    void theConsoleDropsThePoolTimersLateDoubleFailureAndNothingElse() throws Exception {
        Filter console = consoleFilter();
        assertTrue(console != null, "the console handler has a filter (quarkus.log.console.filter)");
        Logger root = LogContext.getLogContext().getLogger("");
        Capture capture = new Capture();
        capture.setLevel(Level.ALL);
        root.addHandler(capture);
        List<LogRecord> late;
        try {
            String q = "timer-" + UUID.randomUUID();
            assertEquals(200, push(q, "before"));
            pg.crash();
            assertEquals(503, push(q, "during"));
            long failedAt = System.nanoTime();
            pg.start();
            while (System.nanoTime() - failedAt < TIMER.toNanos()) {
                Thread.sleep(500);
            }
            assertEquals(200, push(q, "after"));
        } finally {
            root.removeHandler(capture);
        }
        synchronized (capture.records) {
            late = capture.records.stream().filter(PoolTimerAfterOutageTest::isTimerDoubleFail).map(r -> (LogRecord) r).toList();
        }
        assertFalse(late.isEmpty(), "no late double failure of the pool's timer was logged: is vertx-sql-client "
                + "issue 1706 fixed? Then remove PoolTimerDoubleFailFilter and quarkus.log.console.filter");
        for (LogRecord r : late) {
            assertFalse(console.isLoggable(r), "the console would print: " + r.getMessage());
        }
        LogRecord other = new LogRecord(Level.SEVERE, "Uncaught exception received by Vert.x");
        other.setThrown(new IllegalStateException("something else"));
        assertTrue(console.isLoggable(other), "another uncaught exception still reaches the console");
    }
}
