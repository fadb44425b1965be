package dev.exactly.webhook;

import static dev.exactly.webhook.Signing.utf8;
import static dev.exactly.webhook.WebhookClient.messageId;
import static dev.exactly.webhook.WebhookClient.post;
import static dev.exactly.webhook.WebhookClient.verdict;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.junit.QuarkusTest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Each provider preset end to end against the embedded PostgreSQL: a valid delivery is stored, its
 * redelivery (re-signed where the provider re-signs) is a duplicate of it, and a tampered one is a
 * 401 problem that writes nothing. Deliveries are signed by {@link Signing}, written from each
 * provider's documentation. Sources from the %test profile.
 */
@QuarkusTest
class WebhookProvidersTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static long now() {
        return System.currentTimeMillis() / 1000;
    }

    /** Posts a delivery, its redelivery and a tampered copy (other body, same headers). */
    private static void storedOnceAndTamperingRefused(String source, byte[] body, Function<byte[], String[]> sign,
                                                      String expectedKey) throws Exception {
        storedOnceAndForgeryRefused(source, body, sign, expectedKey, null);
    }

    /**
     * Posts a delivery, its redelivery and a forged one: the tampered body with the original's
     * headers, or, when {@code forged} is given (GitLab signs no body), the body with those headers.
     */
    private static void storedOnceAndForgeryRefused(String source, byte[] body, Function<byte[], String[]> sign,
                                                    String expectedKey, String[] forged) throws Exception {
        HttpResponse<String> first = post(source, body, sign.apply(body));
        assertEquals("queued", verdict(first), source + ": " + first.body());
        JsonNode receipt = JSON.readTree(first.body());
        assertEquals(expectedKey, receipt.get("transactionId").asText(), source);
        assertEquals("webhooks." + source, receipt.get("queue").asText());

        HttpResponse<String> again = post(source, body, sign.apply(body));
        assertEquals("duplicate", verdict(again), source + ": " + again.body());
        assertEquals(messageId(first), messageId(again), source);

        long before = StoredRows.countAll();
        byte[] tampered = new String(body, java.nio.charset.StandardCharsets.UTF_8).replace("}", ",\"x\":1}")
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        HttpResponse<String> bad = forged == null ? post(source, tampered, sign.apply(body)) : post(source, body, forged);
        assertEquals(401, bad.statusCode(), source + ": " + bad.body());
        assertEquals("application/problem+json", bad.headers().firstValue("Content-Type").orElse(""));
        assertEquals("/problems/invalid-signature", JSON.readTree(bad.body()).get("type").asText());
        assertEquals(before, StoredRows.countAll(), source + ": a refused delivery wrote a row");
        JsonNode kept = JSON.readTree(StoredRows.byMessageId(messageId(first)).get(0).headers());
        assertFalse(kept.isEmpty(), source);
    }

    @Test
    void shopify() throws Exception {
        String id = UUID.randomUUID().toString();
        byte[] body = utf8("{\"id\":820982911946154508,\"email\":\"jon@example.com\"}");
        storedOnceAndTamperingRefused("shopify", body, b -> new String[] {"Content-Type", "application/json",
                "X-Shopify-Topic", "orders/create", "X-Shopify-Webhook-Id", id,
                "X-Shopify-Hmac-Sha256", Signing.hmacBase64("shopify-test-secret", b)}, id);
    }

    @Test
    void slack() throws Exception {
        String event = "Ev" + UUID.randomUUID().toString().replace("-", "").substring(0, 10).toUpperCase();
        byte[] body = utf8("{\"type\":\"event_callback\",\"event_id\":\"" + event + "\",\"event\":{\"type\":\"message\"}}");
        storedOnceAndTamperingRefused("slack", body, b -> {
            long ts = now();
            return new String[] {"Content-Type", "application/json", "X-Slack-Request-Timestamp", Long.toString(ts),
                    "X-Slack-Signature", Signing.slack("slack-test-secret", ts, b)};
        }, event);
        // a stale timestamp is refused even when correctly signed
        long old = now() - 301;
        HttpResponse<String> stale = post("slack", body, "X-Slack-Request-Timestamp", Long.toString(old),
                "X-Slack-Signature", Signing.slack("slack-test-secret", old, body));
        assertEquals(401, stale.statusCode(), stale.body());
    }

    @Test
    void slacksUrlVerificationIsAnsweredAndNotStored() {
        byte[] body = utf8("{\"token\":\"Jhj5dZrVaK7ZwHHjRyZWjbDl\",\"challenge\":\"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P\","
                + "\"type\":\"url_verification\"}");
        long before = StoredRows.countAll();
        long ts = now();
        HttpResponse<String> r = post("slack", body, "Content-Type", "application/json",
                "X-Slack-Request-Timestamp", Long.toString(ts), "X-Slack-Signature", Signing.slack("slack-test-secret", ts, body));
        assertEquals(200, r.statusCode(), r.body());
        assertEquals("3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P", r.body());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));
        // an unsigned challenge is refused like any delivery
        HttpResponse<String> forged = post("slack", body, "X-Slack-Request-Timestamp", Long.toString(ts),
                "X-Slack-Signature", Signing.slack("wrong", ts, body));
        assertEquals(401, forged.statusCode(), forged.body());
        assertEquals(before, StoredRows.countAll());
    }

    @Test
    void twitchsCallbackVerificationIsAnsweredAndNotStored() {
        String id = UUID.randomUUID().toString();
        byte[] body = utf8("{\"challenge\":\"pogchamp-kappa-360noscope-vohiyo\",\"subscription\":{\"type\":\"channel.follow\"}}");
        long before = StoredRows.countAll();
        String ts = Instant.now().toString();
        HttpResponse<String> r = post("twitch", body, "Content-Type", "application/json", "Twitch-Eventsub-Message-Id", id,
                "Twitch-Eventsub-Message-Type", "webhook_callback_verification", "Twitch-Eventsub-Message-Timestamp", ts,
                "Twitch-Eventsub-Message-Signature", Signing.twitch("twitch-test-secret", id, ts, body));
        assertEquals(200, r.statusCode(), r.body());
        assertEquals("pogchamp-kappa-360noscope-vohiyo", r.body());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));
        assertEquals(before, StoredRows.countAll());
    }

    @Test
    void gitlab() throws Exception {
        String key = UUID.randomUUID().toString();
        byte[] body = utf8("{\"object_kind\":\"push\",\"ref\":\"refs/heads/main\"}");
        storedOnceAndForgeryRefused("gitlab", body, b -> new String[] {"Content-Type", "application/json",
                "X-Gitlab-Event", "Push Hook", "Idempotency-Key", key, "X-Gitlab-Token", "gitlab-test-token"}, key,
                new String[] {"Idempotency-Key", UUID.randomUUID().toString(), "X-Gitlab-Token", "gitlab-test-toke"});
        // the token is the secret: it is never stored
        String first = StoredRows.inQueue("webhooks.gitlab").get(0).headers();
        assertFalse(first.toLowerCase().contains("token"), first);
    }

    @Test
    void twitch() throws Exception {
        String id = UUID.randomUUID().toString();
        byte[] body = utf8("{\"subscription\":{\"type\":\"channel.follow\"},\"event\":{\"user_id\":\"1337\"}}");
        storedOnceAndTamperingRefused("twitch", body, b -> {
            String ts = Instant.now().toString();
            return new String[] {"Content-Type", "application/json", "Twitch-Eventsub-Message-Id", id,
                    "Twitch-Eventsub-Message-Type", "notification", "Twitch-Eventsub-Message-Timestamp", ts,
                    "Twitch-Eventsub-Message-Signature", Signing.twitch("twitch-test-secret", id, ts, b)};
        }, id);
    }

    @Test
    void square() throws Exception {
        String event = UUID.randomUUID().toString();
        byte[] body = utf8("{\"merchant_id\":\"MLEFBHHSJGVHD\",\"type\":\"payment.updated\",\"event_id\":\"" + event + "\"}");
        storedOnceAndTamperingRefused("square", body, b -> new String[] {"Content-Type", "application/json",
                "x-square-hmacsha256-signature", Signing.square("square-test-key",
                        "https://hooks.example.com/webhooks/square", b)}, event);
    }

    @Test
    void linear() throws Exception {
        String delivery = UUID.randomUUID().toString();
        byte[] body = utf8("{\"action\":\"create\",\"type\":\"Issue\",\"data\":{\"id\":\"i1\"},\"webhookTimestamp\":"
                + System.currentTimeMillis() + "}");
        storedOnceAndTamperingRefused("linear", body, b -> new String[] {"Content-Type", "application/json",
                "Linear-Delivery", delivery, "Linear-Event", "Issue", "Linear-Signature",
                Signing.linear("linear-test-secret", b)}, delivery);
    }

    @Test
    void paddle() throws Exception {
        String event = "evt_" + UUID.randomUUID().toString().replace("-", "");
        byte[] body = utf8("{\"event_id\":\"" + event + "\",\"event_type\":\"transaction.completed\"}");
        storedOnceAndTamperingRefused("paddle", body, b -> new String[] {"Content-Type", "application/json",
                "Paddle-Signature", Signing.paddle("pdl_ntfset_test_secret", now(), b)}, event);
    }

    @Test
    void svixHeaderNamesReachTheStandardWebhooksSource() throws Exception {
        String secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        String id = "msg_" + UUID.randomUUID();
        byte[] body = utf8("{\"type\":\"user.created\"}");
        storedOnceAndTamperingRefused("standard-webhooks", body, b -> {
            long ts = now();
            return new String[] {"Content-Type", "application/json", "svix-id", id, "svix-timestamp",
                    Long.toString(ts), "svix-signature", Signing.standardWebhooks(secret, id, ts, b)};
        }, id);
        assertTrue(StoredRows.inQueue("webhooks.standard-webhooks").stream().anyMatch(r -> r.transactionId().equals(id)));
    }
}
