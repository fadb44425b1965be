package dev.exactly.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A stop (SIGTERM) of the packaged server on its embedded PostgreSQL, as README starts it: the
 * database outlives the stop's wait for the requests under way. A long poll under way when the
 * stop begins is answered by the poll itself (200, nothing available) once its wait ends, not 503
 * for a database that went away with the JVM's exit; the duplicate counts are written at the stop;
 * and the embedded PostgreSQL has stopped once the server has exited.
 */
class EmbeddedStopIT {

    private static final String KEY = "exactly-embedded-stop-test-key";

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private PackagedServer server;
    private Path data;

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.stop();
        }
        if (data != null) {
            ListenAddressIT.stopLeftoverPostgres(data);
        }
    }

    @Test
    void aLongPollUnderWayAtTheStopIsAnsweredByItsPollWithTheDatabaseStillUp() throws Exception {
        Path dir = Path.of("target", "embedded-stop-" + UUID.randomUUID()).toAbsolutePath();
        Files.createDirectories(dir);
        data = dir.resolve(".exactly").resolve("pgdata");
        server = PackagedServer.start(dir, Map.of(
                "EXACTLY_PRIMING_ROUNDS", "0",
                "EXACTLY_AUTH_API_KEY_SHA256", HexFormat.of().formatHex(
                        MessageDigest.getInstance("SHA-256").digest(KEY.getBytes(StandardCharsets.UTF_8)))), 180);
        assertTrue(server.output().contains("using the embedded PostgreSQL"), server.output());

        for (int i = 0; i < 2; i++) { // the second a duplicate, whose count is written at the latest by the stop
            assertEquals(200, send("/api/v1/push", "{\"items\":[{\"queue\":\"stop\",\"transactionId\":\"t1\",\"payload\":{}}]}")
                    .statusCode());
        }
        HttpResponse<String> first = send("/api/v1/pop", "{\"queue\":\"stop\",\"consumerGroup\":\"g\",\"batch\":1}");
        assertEquals(200, first.statusCode(), first.body());
        assertTrue(first.body().contains("\"t1\""), first.body());

        // nothing is available to the group now (t1 is leased): this poll waits its whole 6 s
        CompletableFuture<HttpResponse<String>> poll = http.sendAsync(request("/api/v1/pop",
                "{\"queue\":\"stop\",\"consumerGroup\":\"g\",\"batch\":1,\"waitMillis\":6000}"),
                HttpResponse.BodyHandlers.ofString());
        Thread.sleep(1_000);
        server.process().destroy(); // SIGTERM

        HttpResponse<String> answer = poll.get(40, TimeUnit.SECONDS);
        assertEquals(200, answer.statusCode(), "the poll under way at the stop: " + answer.body() + "\n" + server.output());
        assertEquals("{\"messages\":[]}", answer.body().replace(" ", ""));
        assertTrue(server.process().waitFor(60, TimeUnit.SECONDS), "the server exited");
        assertFalse(server.output().contains("not written at shutdown"), server.output());
        assertFalse(Files.exists(data.resolve("postmaster.pid")),
                "the embedded PostgreSQL stopped with the server\n" + server.output());
    }

    private HttpRequest request(String path, String body) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .timeout(Duration.ofSeconds(40))
                .header("Authorization", "Bearer " + KEY)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    private HttpResponse<String> send(String path, String body) throws Exception {
        return http.send(request(path, body), HttpResponse.BodyHandlers.ofString());
    }
}
