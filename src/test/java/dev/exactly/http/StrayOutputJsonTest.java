package dev.exactly.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.exactly.testing.LogCapture;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jboss.logmanager.LogContext;
import org.jboss.logmanager.Logger;
import org.junit.jupiter.api.Test;

/**
 * With JSON logs on, what a library prints past the logging system is still one JSON object a
 * line: the reactive PostgreSQL client prints the failure of a borrowed connection that has no
 * exception handler to System.err (a bare {@code io.vertx.pgclient.PgException: FATAL: terminating
 * connection ...} line when PostgreSQL ends its backend, e.g. when the postmaster is killed); here
 * it is a WARN record of the logger {@code stderr}, formatted as JSON by the console handler. A
 * plain print to System.out and an exception no thread caught are records too.
 */
@QuarkusTest
@TestProfile(JsonLogsTest.Json.class)
class StrayOutputJsonTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Inject
    Pool pool;

    @Test
    void whatTheDatabaseClientPrintsIsAJsonLogRecord() throws Exception {
        JsonLogsTest.Capture capture = new JsonLogsTest.Capture();
        capture.setFormatter(LogCapture.consoleHandler().getFormatter());
        Logger root = LogContext.getLogContext().getLogger("");
        root.addHandler(capture);
        try {
            // a connection borrowed without an exception handler, its backend ended under it
            SqlConnection raw = pool.getConnection().await().atMost(Duration.ofSeconds(30));
            int pid = raw.query("SELECT pg_backend_pid()").execute().await().atMost(Duration.ofSeconds(30))
                    .iterator().next().getInteger(0);
            pool.query("SELECT pg_terminate_backend(" + pid + ")").execute().await().atMost(Duration.ofSeconds(30));
            long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (lines(capture, "terminating connection").isEmpty() && System.nanoTime() < until) {
                Thread.sleep(50);
            }
            raw.close().await().atMost(Duration.ofSeconds(30));

            System.out.println("a stray line on standard output");
            Thread stray = new Thread(() -> {
                throw new IllegalStateException("nobody catches this");
            }, "stray-thread");
            stray.start();
            stray.join();
        } finally {
            root.removeHandler(capture);
        }
        List<String> printed = lines(capture, "terminating connection");
        assertFalse(printed.isEmpty(), "the client's print reached the log");
        JsonNode record = JSON.readTree(printed.get(0));
        assertEquals("stderr", record.get("logger").asText());
        assertEquals("WARN", record.get("level").asText());
        assertTrue(record.get("message").asText().contains("PgException"), record.toString());

        JsonNode out = JSON.readTree(lines(capture, "a stray line").get(0));
        assertEquals("stdout", out.get("logger").asText());
        JsonNode uncaught = JSON.readTree(lines(capture, "stray-thread").get(0));
        assertEquals("uncaught", uncaught.get("logger").asText());
        assertEquals("ERROR", uncaught.get("level").asText());
        assertTrue(uncaught.toString().contains("nobody catches this"), uncaught.toString());
    }

    /** Formatted records containing {@code text}, each checked to be one JSON object on one line. */
    private static List<String> lines(JsonLogsTest.Capture capture, String text) throws Exception {
        List<String> out = new ArrayList<>();
        synchronized (capture.lines) {
            for (String l : capture.lines) {
                if (l.contains(text)) {
                    String line = l.strip();
                    assertFalse(line.contains("\n"), "one line: " + line);
                    JSON.readTree(line);
                    out.add(line);
                }
            }
        }
        return out;
    }
}
