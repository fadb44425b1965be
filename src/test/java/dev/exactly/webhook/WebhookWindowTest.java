package dev.exactly.webhook;

import static dev.exactly.testing.Api.api;
import static dev.exactly.webhook.Signing.utf8;
import static dev.exactly.webhook.WebhookClient.messageId;
import static dev.exactly.webhook.WebhookClient.post;
import static dev.exactly.webhook.WebhookClient.verdict;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.standardwebhooks.Webhook;
import io.quarkus.test.junit.QuarkusTest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Each preset's queue gets its provider's deduplication window, by the rule of {@link QueueWindows},
 * against the embedded PostgreSQL; a redelivery a day later is still a duplicate. A day is
 * simulated by moving the stored rows a day into the past (the probe compares their created_at
 * with the window). Sources from the %test profile.
 */
@QuarkusTest
class WebhookWindowTest {

    private static final String STRIPE_SECRET = "whsec_stripe-test-secret";
    private static final String SW_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    private static final long DAY = 86_400;

    private static long now() {
        return System.currentTimeMillis() / 1000;
    }

    private static int window(String queue) {
        return api().get("/api/v1/queues/" + queue).then().statusCode(200).extract().path("options.dedupWindowSeconds");
    }

    /** A Stripe delivery signed by stripe-java, at the current time. */
    private static HttpResponse<String> stripe(String source, byte[] body) throws Exception {
        String header = com.stripe.net.Webhook.Signature.generateSignatureHeader(
                new String(body, StandardCharsets.UTF_8), STRIPE_SECRET, now());
        return post(source, body, "Content-Type", "application/json", "Stripe-Signature", header);
    }

    /** A Standard Webhooks delivery signed by the reference library, at the current time. */
    private static HttpResponse<String> standard(String source, String id, byte[] body) throws Exception {
        long ts = now();
        String sig = new Webhook(SW_SECRET).sign(id, ts, new String(body, StandardCharsets.UTF_8));
        return post(source, body, "Content-Type", "application/json", "webhook-id", id,
                "webhook-timestamp", Long.toString(ts), "webhook-signature", sig);
    }

    private static byte[] stripeEvent() {
        return utf8("{\"id\":\"evt_" + UUID.randomUUID().toString().replace("-", "") + "\",\"object\":\"event\","
                + "\"type\":\"invoice.paid\",\"livemode\":true}");
    }

    @Test
    void aStripeRetryADayLaterIsStillADuplicate() throws Exception {
        byte[] body = stripeEvent();
        HttpResponse<String> first = stripe("stripe", body);
        assertEquals("queued", verdict(first), first.body());
        assertEquals(4 * DAY, window("webhooks.stripe"));
        StoredRows.age(messageId(first), DAY + 60);
        // Stripe re-signs every attempt: a new timestamp, the same event id
        HttpResponse<String> retry = stripe("stripe", body);
        assertEquals("duplicate", verdict(retry), retry.body());
        assertEquals(messageId(first), messageId(retry));
        // three days and a half: still inside the window
        StoredRows.age(messageId(first), 2 * DAY + 12 * 3600);
        assertEquals("duplicate", verdict(stripe("stripe", body)));
    }

    @Test
    void aStandardWebhooksRetryADayLaterIsStillADuplicate() throws Exception {
        String id = "msg_" + UUID.randomUUID();
        byte[] body = utf8("{\"type\":\"invoice.paid\",\"data\":{\"id\":\"" + id + "\"}}");
        HttpResponse<String> first = standard("standard-webhooks", id, body);
        assertEquals("queued", verdict(first), first.body());
        assertEquals(2 * DAY, window("webhooks.standard-webhooks"));
        StoredRows.age(messageId(first), DAY + 3600);
        HttpResponse<String> retry = standard("standard-webhooks", id, body);
        assertEquals("duplicate", verdict(retry), retry.body());
        assertEquals(messageId(first), messageId(retry));
    }

    @Test
    void outsideTheWindowADeliveryIsStoredAgain() throws Exception {
        // control: the aging above really moves a delivery out of a shorter window
        String delivery = UUID.randomUUID().toString();
        byte[] body = utf8("{\"zen\":\"" + delivery + "\"}");
        HttpResponse<String> first = post("short", body, "X-GitHub-Delivery", delivery, "X-Hub-Signature-256",
                Signing.github("gh-test-secret", body));
        assertEquals("queued", verdict(first), first.body());
        assertEquals(120, window("webhooks.short"));
        StoredRows.age(messageId(first), DAY);
        HttpResponse<String> again = post("short", body, "X-GitHub-Delivery", delivery, "X-Hub-Signature-256",
                Signing.github("gh-test-secret", body));
        assertEquals("queued", verdict(again), again.body());
    }

    @Test
    void aQueueCreatedByAPlainPushGetsThePresetWindow() throws Exception {
        // before this source's first delivery, a push created the queue with the default window
        api().body("{\"items\":[{\"queue\":\"legacy.stripe\",\"transactionId\":\"" + UUID.randomUUID()
                + "\",\"payload\":{}}]}").post("/api/v1/push").then().statusCode(200);
        assertEquals(3600, window("legacy.stripe"));
        HttpResponse<String> r = stripe("legacy", stripeEvent());
        assertEquals("queued", verdict(r), r.body());
        assertEquals(4 * DAY, window("legacy.stripe"));
    }

    @Test
    void anOperatorsWindowIsKept() throws Exception {
        api().body("{\"options\":{\"dedupWindowSeconds\":900}}").patch("/api/v1/queues/configured.sw")
                .then().statusCode(200);
        String id = "msg_" + UUID.randomUUID();
        HttpResponse<String> r = standard("configured", id, utf8("{\"type\":\"x\"}"));
        assertEquals("queued", verdict(r), r.body());
        assertEquals(900, window("configured.sw"));
        assertEquals("duplicate", verdict(standard("configured", id, utf8("{\"type\":\"x\"}"))));
    }
}
