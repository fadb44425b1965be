package dev.exactly.deadline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.Api;
import dev.exactly.testing.LogCapture;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Level;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

/**
 * A client that stalls its body past the request's deadline is answered 408
 * {@code /problems/request-timeout} and its connection closed (a webhook receiver without a
 * signature and a push with the key); the database, never used, is not
 * blamed: no database failure is counted and no warning logged.
 */
@QuarkusTest
class StalledBodyTest {

    @Inject
    MeterRegistry registry;

    static int port() {
        return ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
    }

    /** Sends the head and a part of the announced body, then nothing; returns all the server sent until it closed. */
    static String stall(String path, String auth, int length) {
        try (Socket s = new Socket("127.0.0.1", port())) {
            s.setSoTimeout(50_000);
            OutputStream out = s.getOutputStream();
            out.write(("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" + auth
                    + "Content-Length: " + length + "\r\n\r\n{\"items\":[{\"queue\"").getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            InputStream in = s.getInputStream();
            try {
                in.transferTo(all);
            } catch (java.io.IOException e) {
                return all.toString(StandardCharsets.UTF_8) + "\n(then " + e + ")";
            }
            return all.toString(StandardCharsets.UTF_8);
        } catch (Exception e) {
            return e.toString();
        }
    }

    private double databaseFailures() {
        return registry.find("exactly.database.failures").counters().stream().mapToDouble(Counter::count).sum();
    }

    @Test
    void aBodyStalledPastTheDeadlineIs408AndNoDatabaseFailure() throws Exception {
        double before = databaseFailures();
        List<String> answers;
        List<String> warnings;
        try (LogCapture logs = LogCapture.open()) {
            CompletableFuture<String> hook = CompletableFuture.supplyAsync(() -> stall("/webhooks/metered", "", 60));
            CompletableFuture<String> push = CompletableFuture.supplyAsync(
                    () -> stall("/api/v1/push", "Authorization: Bearer " + Api.TEST_API_KEY + "\r\n", 553));
            answers = List.of(hook.get(), push.get());
            warnings = logs.records().stream().filter(r -> r.getLevel().intValue() >= Level.WARNING.intValue())
                    .map(r -> r.getLoggerName() + ": " + r.getFormattedMessage()).toList();
        }
        for (String a : answers) {
            assertTrue(a.startsWith("HTTP/1.1 408 "), a);
            String head = a.substring(0, a.indexOf("\r\n\r\n")).toLowerCase();
            assertTrue(head.contains("\r\ncontent-type: application/problem+json"), a);
            assertTrue(head.contains("\r\nconnection: close"), a);
            assertTrue(a.contains("\"type\":\"/problems/request-timeout\""), a);
            assertTrue(a.contains("\"status\":408"), a);
        }
        assertEquals(before, databaseFailures(), "database failures counted");
        assertEquals(List.of(), warnings);
    }
}
