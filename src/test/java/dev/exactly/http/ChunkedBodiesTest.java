package dev.exactly.http;

import static dev.exactly.testing.Api.api;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.consume.ConsumeFixtures;
import dev.exactly.testing.Api;
import dev.exactly.testing.ChunkedPost;
import dev.exactly.testing.ChunkedPost.Answer;
import dev.exactly.testing.SizedPayload;
import dev.exactly.webhook.Signing;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

/**
 * Bodies sent chunked (Transfer-Encoding: chunked, no Content-Length, in 64 KiB chunks), which
 * {@link BodyLimitFilter} reads and counts before the endpoint, reach every route byte for byte:
 * push, transaction, task enqueue, a signed webhook delivery and ack, at 1 KiB, 64 KiB, 1 MiB and
 * the route's limit itself (the largest body it takes). What was stored is read back through the
 * API and compared with what was sent; the webhook's signature is an HMAC of the bytes received.
 * One byte over a route's limit is still the 413 problem naming the limit's key.
 */
@QuarkusTest
class ChunkedBodiesTest {

    private static final String GH_SECRET = "gh-test-secret";

    private static long pushLimit() {
        return ConfigProvider.getConfig().getValue("exactly.push.max-body-bytes", Long.class);
    }

    private static long taskLimit() {
        return ConfigProvider.getConfig().getValue("exactly.tasks.max-body-bytes", Long.class);
    }

    /** The gh source's limit: its own max-body-bytes, else the push limit. */
    private static long webhookLimit() {
        return ConfigProvider.getConfig().getOptionalValue("exactly.webhooks.sources.gh.max-body-bytes", Long.class)
                .orElse(pushLimit());
    }

    /** 1 KiB, 64 KiB, 1 MiB and the limit. */
    private static long[] sizes(long limit) {
        return new long[]{1024, 64 * 1024, 1024 * 1024, limit};
    }

    private static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** {@code prefix + payload + suffix}, the payload sized so that the whole is {@code size} bytes. */
    private static String sized(long size, String prefix, String suffix) {
        return prefix + SizedPayload.of(size - prefix.length() - suffix.length(), size) + suffix;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Asserts that {@code answer} is 200 and returns its JSON. */
    private static JsonPath ok(Answer answer, String what) {
        assertEquals(200, answer.status(), what + ": " + answer.text());
        return JsonPath.from(answer.text());
    }

    /**
     * Asserts that {@code text} holds {@code expected} right after the first {@code marker}, and
     * says where they first differ otherwise (the texts are too long for a message).
     */
    private static void assertAfter(String text, String marker, String expected, String what) {
        int at = text.indexOf(marker);
        assertTrue(at >= 0, what + ": no " + marker + " in " + text.substring(0, Math.min(300, text.length())));
        int from = at + marker.length();
        for (int i = 0; i < expected.length(); i++) {
            if (from + i >= text.length() || text.charAt(from + i) != expected.charAt(i)) {
                String got = text.substring(from + i, Math.min(text.length(), from + i + 40));
                throw new AssertionError(what + ": differs at character " + i + " of " + expected.length()
                        + ": expected …" + expected.substring(i, Math.min(expected.length(), i + 40)) + "…, got …" + got + "…");
            }
        }
    }

    /** GET /api/v1/messages/{id}: the payload is the one pushed, byte for byte. */
    private static void assertStoredPayload(String messageId, String payload, String what) {
        String stored = api().get("/api/v1/messages/" + messageId).then().statusCode(200).extract().asString();
        assertAfter(stored, "\"payload\":", payload, what);
    }

    @Test
    void pushBodiesArriveWhole() throws Exception {
        for (long size : sizes(pushLimit())) {
            String what = "push of " + size + " bytes";
            String prefix = "{\"items\":[{\"queue\":\"" + unique("chunked-push") + "\",\"transactionId\":\""
                    + unique("t") + "\",\"payload\":";
            String body = sized(size, prefix, "}]}");
            assertEquals(size, utf8(body).length);
            JsonPath r = ok(ChunkedPost.api("/api/v1/push", utf8(body)), what);
            assertEquals("queued", r.getString("results[0].status"), what);
            assertStoredPayload(r.getString("results[0].messageId"), body.substring(prefix.length(), body.length() - 3), what);
        }
    }

    @Test
    void transactionBodiesArriveWhole() throws Exception {
        for (long size : sizes(pushLimit())) {
            String what = "transaction of " + size + " bytes";
            String prefix = "{\"operations\":[{\"type\":\"push\",\"items\":[{\"queue\":\"" + unique("chunked-txn")
                    + "\",\"transactionId\":\"" + unique("t") + "\",\"payload\":";
            String body = sized(size, prefix, "}]}]}");
            assertEquals(size, utf8(body).length);
            JsonPath r = ok(ChunkedPost.api("/api/v1/transaction", utf8(body)), what);
            assertEquals("queued", r.getString("results[0].items[0].status"), what);
            assertStoredPayload(r.getString("results[0].items[0].messageId"),
                    body.substring(prefix.length(), body.length() - 5), what);
        }
    }

    @Test
    void taskBodiesArriveWhole() throws Exception {
        for (long size : sizes(taskLimit())) {
            String what = "task of " + size + " bytes";
            String queue = unique("chunked-task");
            String prefix = "{\"queue\":\"" + queue + "\",\"id\":\"" + unique("t") + "\",\"type\":\"chunked\",\"data\":";
            String body = sized(size, prefix, "}");
            assertEquals(size, utf8(body).length);
            JsonPath r = ok(ChunkedPost.api("/api/v1/tasks", utf8(body)), what);
            assertEquals("enqueued", r.getString("status"), what);
            String stored = api().get("/api/v1/tasks/" + r.getString("taskId") + "?queue=" + queue)
                    .then().statusCode(200).extract().asString();
            assertAfter(stored, "\"data\":", body.substring(prefix.length(), body.length() - 1), what);
        }
    }

    @Test
    void signedWebhookDeliveriesVerifyAndArriveWhole() throws Exception {
        for (long size : sizes(webhookLimit())) {
            String what = "webhook delivery of " + size + " bytes";
            String body = SizedPayload.of(size, size);
            byte[] bytes = utf8(body);
            Answer a = ChunkedPost.post("/webhooks/gh", bytes, "Content-Type", "application/json",
                    "X-GitHub-Event", "push", "X-GitHub-Delivery", UUID.randomUUID().toString(),
                    "X-Hub-Signature-256", Signing.github(GH_SECRET, bytes));
            ok(a, what);
            assertEquals("queued", a.headers().get("exactly-verdict"), what);
            assertStoredPayload(a.headers().get("exactly-message-id"), body, what);
        }
    }

    @Test
    void ackBodiesArriveWhole() throws Exception {
        Random random = new Random(7);
        for (long size : sizes(pushLimit())) {
            String what = "ack of " + size + " bytes";
            String queue = unique("chunked-ack");
            ConsumeFixtures.push(queue, "Default", unique("t"), "{\"n\":1}");
            List<Map<String, Object>> popped = ConsumeFixtures.pop(queue, "Default", "g", 1);
            assertEquals(1, popped.size(), what);
            String ack = "{\"messageId\":\"" + popped.get(0).get("messageId") + "\",\"leaseId\":\""
                    + popped.get(0).get("leaseId") + "\",\"consumerGroup\":\"g\",\"status\":\"completed\"";
            // the fields take little room: the rest is JSON whitespace, which zeros or lost bytes would break
            StringBuilder b = new StringBuilder(ack);
            while (b.length() < size - 1) {
                b.append(" \n\t\r".charAt(random.nextInt(4)));
            }
            byte[] body = utf8(b.append('}').toString());
            assertEquals(size, body.length);
            JsonPath r = ok(ChunkedPost.api("/api/v1/ack", body), what);
            assertEquals("acked", r.getString("result"), what);
            assertEquals(popped.get(0).get("messageId"), r.getString("messageId"), what);
            assertEquals(List.of(), ConsumeFixtures.pop(queue, "Default", "g", 1), what + ": acked, so nothing is left");
        }
    }

    @Test
    void oneByteOverEachRoutesLimitIsStillThe413Problem() throws Exception {
        String key = "Bearer " + Api.TEST_API_KEY;
        Object[][] routes = {
                {"/api/v1/push", pushLimit(), "exactly.push.max-body-bytes"},
                {"/api/v1/transaction", pushLimit(), "exactly.push.max-body-bytes"},
                {"/api/v1/tasks", taskLimit(), "exactly.tasks.max-body-bytes"},
                {"/webhooks/gh", webhookLimit(), "exactly.webhooks.sources.gh.max-body-bytes"},
                {"/api/v1/ack", pushLimit(), "exactly.push.max-body-bytes"}};
        for (Object[] route : routes) {
            long limit = (Long) route[1];
            Answer a = ChunkedPost.post((String) route[0], utf8(SizedPayload.of(limit + 1, 1)), "Authorization", key,
                    "Content-Type", "application/json");
            assertEquals(413, a.status(), route[0] + ": " + a.text());
            assertEquals("application/problem+json", a.headers().get("content-type"), (String) route[0]);
            assertTrue(a.text().contains(limit + " bytes (" + route[2] + ")"), route[0] + ": " + a.text());
        }
    }
}
