package dev.exactly.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.exactly.testing.Api;
import dev.exactly.testing.PostgresResource;
import dev.exactly.testing.TestDatabase;
import dev.exactly.webhook.Signing;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Hostile bodies over real HTTP to the running application: push, configure, tasks (enqueue,
 * batch), pop, ack, transaction and webhook deliveries (signed, so that the hostile body reaches the key, partition and content-hash
 * code), drawn from {@link HostileBodies} with a printed seed, plus the big ones: 10 MB strings,
 * a 17 MB body sent without a Content-Length, bodies in UTF-16 and with invalid UTF-8 or NUL
 * bytes. Always a 4xx problem+json that wrote nothing, or a 200 whose verdicts are correct;
 * never a 5xx.
 */
@QuarkusTest
class HostileInputHttpTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, AtomicInteger> OUTCOMES = new TreeMap<>();

    @TestHTTPResource("/")
    URL base;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @AfterAll
    static void report() {
        int total = OUTCOMES.values().stream().mapToInt(AtomicInteger::get).sum();
        long fives = OUTCOMES.entrySet().stream().filter(e -> e.getKey().endsWith(" 5xx")).mapToInt(e -> e.getValue().get()).sum();
        System.out.println("[fuzz] http bodies " + total + ", 5xx " + fives + ", by outcome " + OUTCOMES);
    }

    private static Connection jdbc() throws Exception {
        return DriverManager.getConnection(TestDatabase.jdbcUrl(PostgresResource.database), "postgres", "");
    }

    private HttpResponse<String> send(String path, HttpRequest.BodyPublisher body, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base.toString()).resolve(path)).timeout(Duration.ofSeconds(120))
                .POST(body);
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        try {
            return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            // the server may close the connection after answering a too-large body early
            throw new IllegalStateException("no HTTP answer for " + path, e);
        }
    }

    /** Sends one body and checks the outcome; returns the response. */
    private HttpResponse<String> check(String what, String path, byte[] body, boolean chunked, String... headers) throws Exception {
        return check(what, path, body, chunked, true, headers);
    }

    private HttpResponse<String> check(String what, String path, byte[] body, boolean chunked, boolean problemJson,
                                       String... headers) throws Exception {
        try (Connection c = jdbc()) {
            long[] before = FuzzOracle.footprint(c);
            Map<PushLedger.Key, List<UUID>> storedBefore = path.equals("/api/v1/push") ? FuzzOracle.stored(c, null) : null;
            HttpRequest.BodyPublisher publisher = chunked
                    ? HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body))
                    : HttpRequest.BodyPublishers.ofByteArray(body);
            HttpResponse<String> r = send(path, publisher, headers);
            int status = r.statusCode();
            synchronized (OUTCOMES) {
                OUTCOMES.computeIfAbsent(what + " " + status / 100 + "xx", k -> new AtomicInteger()).incrementAndGet();
            }
            long[] after = FuzzOracle.footprint(c);
            assertTrue(status < 500, () -> what + ": HTTP " + status + " " + r.body());
            if (status == 200) {
                JsonNode answer = JSON.readTree(r.body());
                if (path.equals("/api/v1/push")) {
                    int[] queued = {0};
                    assertNull(FuzzOracle.checkPush(body, answer, storedBefore, FuzzOracle.stored(c, null), queued));
                    assertEquals(before[0] + 3L * queued[0], after[0], "rows beyond the queued items");
                } else if (path.equals("/api/v1/configure")) {
                    assertNull(FuzzOracle.checkConfigure(body, answer));
                    assertEquals(before[0], after[0]);
                } else {
                    boolean queued = "queued".equals(r.headers().firstValue("Exactly-Verdict").orElse(""));
                    assertEquals(before[0] + (queued ? 3 : 0), after[0], "a webhook delivery wrote " + (after[0] - before[0]));
                }
            } else {
                assertTrue(status >= 400, what + ": HTTP " + status);
                if (problemJson) {
                    assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json"),
                            () -> what + ": HTTP " + status + " without problem+json: " + r.headers().map());
                    assertEquals(status, JSON.readTree(r.body()).get("status").asInt());
                }
                assertArrayEquals(before, after, what + ": a refused request wrote something");
            }
            return r;
        }
    }

    /**
     * Sends a body to an endpoint without a verdict oracle: never a 5xx; a 4xx is a problem+json
     * that changed nothing in any table.
     */
    private void anyWrite(String what, String path, byte[] body) throws Exception {
        try (Connection c = jdbc()) {
            String before = FuzzOracle.everything(c);
            HttpResponse<String> r = send(path, HttpRequest.BodyPublishers.ofByteArray(body), "Content-Type", "application/json",
                    "Authorization", "Bearer " + Api.TEST_API_KEY);
            int status = r.statusCode();
            synchronized (OUTCOMES) {
                OUTCOMES.computeIfAbsent(what + " " + status / 100 + "xx", k -> new AtomicInteger()).incrementAndGet();
            }
            assertTrue(status < 500, () -> what + ": HTTP " + status + " " + r.body());
            if (status >= 400) {
                assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json"),
                        () -> what + ": HTTP " + status + " without problem+json: " + r.headers().map());
                assertEquals(before, FuzzOracle.everything(c), () -> what + ": a refused request wrote something: " + r.body());
            }
        }
    }

    private HttpResponse<String> push(byte[] body) throws Exception {
        return check("push", "/api/v1/push", body, false, "Content-Type", "application/json",
                "Authorization", "Bearer " + Api.TEST_API_KEY);
    }

    private HttpResponse<String> configure(byte[] body) throws Exception {
        return check("configure", "/api/v1/configure", body, false, "Content-Type", "application/json",
                "Authorization", "Bearer " + Api.TEST_API_KEY);
    }

    @Test
    void randomHostileBodies() throws Exception {
        long seed = Long.getLong("reliability.fuzz.seed", System.nanoTime());
        int n = Integer.getInteger("reliability.fuzz.http-bodies", 120);
        System.out.println("[fuzz] http seed " + seed + " (-Dreliability.fuzz.seed to repeat)");
        Random r = new Random(seed);
        for (int i = 0; i < n; i++) {
            push(HostileBodies.push(r));
            configure(HostileBodies.configure(r));
            byte[] hook = HostileBodies.webhook(r);
            check("webhook content-hash", "/webhooks/hashed", hook, false, "Content-Type", "application/json",
                    "X-Signature", Signing.hmacBase64("hashed-test-secret", hook));
            String delivery = r.nextInt(4) == 0 ? "x".repeat(250 + r.nextInt(20)) : "d-" + r.nextInt(n) + "-" + seed;
            check("webhook github", "/webhooks/gh", hook, false, "Content-Type", r.nextBoolean() ? "application/json" : "text/plain",
                    "X-GitHub-Event", "push", "X-GitHub-Delivery", delivery,
                    "X-Hub-Signature-256", Signing.github("gh-test-secret", hook));
            anyWrite("task", "/api/v1/tasks", HostileBodies.task(r));
            anyWrite("task batch", "/api/v1/tasks/batch", HostileBodies.taskBatch(r));
            anyWrite("pop", "/api/v1/pop", HostileBodies.pop(r));
            anyWrite("ack", "/api/v1/ack", HostileBodies.ack(r, false));
            anyWrite("ack batch", "/api/v1/ack/batch", HostileBodies.ack(r, true));
            anyWrite("transaction", "/api/v1/transaction", HostileBodies.transaction(r));
        }
    }

    @Test
    void tenMegabyteStrings() throws Exception {
        String big = "é".repeat(5 * 1024 * 1024);
        assertEquals(413, push(HostileBodies.utf8("{\"items\":[{\"queue\":\"fuzz-p0\",\"payload\":\"" + big + "\"}]}")).statusCode());
        assertEquals(413, push(HostileBodies.utf8("{\"items\":[{\"queue\":\"fuzz-p0\",\"transactionId\":\"" + big
                + "\",\"payload\":1}]}")).statusCode());
        assertEquals(413, configure(HostileBodies.utf8("{\"queue\":\"" + big + "\"}")).statusCode());
        // the same without a Content-Length (chunked): read, then refused
        int chunked = check("push chunked", "/api/v1/push", HostileBodies.utf8("{\"items\":[{\"queue\":\"fuzz-p0\",\"payload\":\""
                + big + "\"}]}"), true, "Content-Type", "application/json", "Authorization", "Bearer " + Api.TEST_API_KEY).statusCode();
        assertEquals(413, chunked);
        // over the outer HTTP limit (16 MiB), without a Content-Length: the HTTP layer (RESTEasy
        // Reactive) answers a bare 413 and closes the connection before any resource runs; a known
        // limit: no problem+json body there
        byte[] huge = HostileBodies.utf8("{\"items\":[{\"queue\":\"fuzz-p0\",\"payload\":\"" + "x".repeat(17 * 1024 * 1024) + "\"}]}");
        assertEquals(413, check("push chunked over the HTTP limit", "/api/v1/push", huge, true, false, "Content-Type", "application/json",
                "Authorization", "Bearer " + Api.TEST_API_KEY).statusCode());
    }

    @Test
    void encodingsAndRawBytes() throws Exception {
        String valid = "{\"items\":[{\"queue\":\"fuzz-p0\",\"transactionId\":\"enc-" + UUID.randomUUID() + "\",\"payload\":{\"a\":1}}]}";
        List<byte[]> bodies = new ArrayList<>(List.of(
                valid.getBytes(StandardCharsets.UTF_16BE), valid.getBytes(StandardCharsets.UTF_16LE),
                valid.getBytes(StandardCharsets.UTF_16), valid.getBytes(java.nio.charset.Charset.forName("UTF-32")),
                new byte[0], new byte[] {0}, new byte[] {0, 0, 0, 0}, new byte[] {(byte) 0xFF, (byte) 0xFE},
                HostileBodies.utf8("{\"items\":[{\"queue\":\"fuzz-p0\",\"payload\":\"a\u0000b\"}]}"),
                new byte[] {'{', '"', 'i', 't', 'e', 'm', 's', '"', ':', '[', '{', '"', 'q', 'u', 'e', 'u', 'e', '"', ':', '"',
                    (byte) 0xC3, 0x28, '"', ',', '"', 'p', 'a', 'y', 'l', 'o', 'a', 'd', '"', ':', '1', '}', ']', '}'},
                HostileBodies.utf8("{\"items\":[{\"queue\":\"fuzz-p0\",\"payload\":" + HostileBodies.nested(new Random(1), 100_000) + "}]}")));
        for (byte[] b : bodies) {
            int status = push(b).statusCode();
            assertTrue(status == 400 || status == 413, "status " + status);
        }
        // a UTF-8 byte order mark is allowed (RFC 8259, section 8.1: a parser MAY ignore it) and the
        // payload is still cut out exactly
        byte[] bom = new byte[valid.length() + 3];
        bom[0] = (byte) 0xEF;
        bom[1] = (byte) 0xBB;
        bom[2] = (byte) 0xBF;
        System.arraycopy(HostileBodies.utf8(valid), 0, bom, 3, valid.length());
        HttpResponse<String> r = push(bom);
        assertEquals(200, r.statusCode(), r.body());
        String id = JSON.readTree(r.body()).at("/results/0/messageId").asText();
        HttpResponse<String> m = http.send(HttpRequest.newBuilder(URI.create(base.toString()).resolve("/api/v1/messages/" + id))
                .header("Authorization", "Bearer " + Api.TEST_API_KEY).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals("{\"a\":1}", JSON.readTree(m.body()).get("payload").toString());
    }
}
