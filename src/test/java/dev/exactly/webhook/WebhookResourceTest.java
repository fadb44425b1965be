package dev.exactly.webhook;

import static dev.exactly.testing.Api.api;
import static dev.exactly.webhook.Signing.utf8;
import static dev.exactly.webhook.WebhookClient.messageId;
import static dev.exactly.webhook.WebhookClient.post;
import static dev.exactly.webhook.WebhookClient.verdict;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.junit.QuarkusTest;
import java.net.http.HttpResponse;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** POST /webhooks/{source} end to end, against the embedded PostgreSQL; sources from the %test profile. */
@QuarkusTest
class WebhookResourceTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String GH_SECRET = "gh-test-secret";

    private static String id() {
        return UUID.randomUUID().toString();
    }

    private static HttpResponse<String> github(String source, byte[] body, String delivery) {
        return post(source, body, "Content-Type", "application/json", "X-GitHub-Event", "push",
                "X-GitHub-Delivery", delivery, "X-Hub-Signature-256", Signing.github(GH_SECRET, body));
    }

    private static JsonNode json(HttpResponse<String> r) throws Exception {
        return JSON.readTree(r.body());
    }

    private static void assertProblem(HttpResponse<String> r, int status, String type) throws Exception {
        assertEquals(status, r.statusCode(), r.body());
        assertEquals("application/problem+json", r.headers().firstValue("Content-Type").orElse(""));
        assertEquals(type, json(r).get("type").asText(), r.body());
        assertEquals(status, json(r).get("status").asInt());
    }

    @Test
    void aRedeliveryIsADuplicateWithTheOriginalMessageId() throws Exception {
        String delivery = id();
        byte[] body = utf8("{\"ref\":\"refs/heads/main\",\"after\":\"" + delivery + "\"}");
        HttpResponse<String> first = github("gh", body, delivery);
        assertEquals(200, first.statusCode(), first.body());
        assertEquals("queued", verdict(first));
        JsonNode receipt = json(first);
        assertEquals("queued", receipt.get("verdict").asText());
        assertEquals(messageId(first), receipt.get("messageId").asText());
        assertEquals("webhooks.gh", receipt.get("queue").asText());
        assertEquals("Default", receipt.get("partition").asText());
        assertEquals(delivery, receipt.get("transactionId").asText());

        HttpResponse<String> again = github("gh", body, delivery);
        assertEquals(200, again.statusCode(), again.body());
        assertEquals("duplicate", verdict(again));
        assertEquals(messageId(first), messageId(again));
        assertEquals(messageId(first), json(again).get("messageId").asText());

        List<StoredRows.Row> rows = StoredRows.byMessageId(messageId(first));
        assertEquals(1, rows.size());
        assertEquals(1, StoredRows.inQueue("webhooks.gh").stream().filter(r -> r.transactionId().equals(delivery)).count());
    }

    @Test
    void theStoredMessageKeepsTheExactBytesAndTheHeadersToVerifyAgain() throws Exception {
        String delivery = id();
        // odd spacing, key order and a non-ASCII character: must survive byte for byte
        byte[] body = utf8("{ \"zeta\" :1,\n\"alpha\":\"Zoë\" , \"n\": 1.50 }");
        HttpResponse<String> r = github("gh", body, delivery);
        assertEquals("queued", verdict(r));
        StoredRows.Row row = StoredRows.byMessageId(messageId(r)).get(0);
        assertArrayEquals(body, row.payload());
        assertEquals("application/json", row.contentType());
        JsonNode headers = JSON.readTree(row.headers());
        assertEquals(delivery, headers.get("x-github-delivery").asText());
        assertEquals("push", headers.get("x-github-event").asText());
        // a consumer re-verifies the signature from what was stored
        assertEquals(headers.get("x-hub-signature-256").asText(), Signing.github(GH_SECRET, row.payload()));

        api().get("/api/v1/messages/" + messageId(r)).then().statusCode(200)
                .body("transactionId", equalTo(delivery))
                .body("payload.alpha", equalTo("Zoë"))
                .body("payloadBase64", nullValue())
                .body("contentType", equalTo("application/json"))
                .body("headers.'x-github-event'", equalTo("push"));
    }

    @Test
    void aBinaryOrFormBodyIsStoredExactlyAndShownAsBase64() throws Exception {
        byte[] binary = {(byte) 0xff, 0x00, (byte) 0xfe, '{', 0x7f};
        String d1 = id();
        HttpResponse<String> r = post("gh", binary, "Content-Type", "application/octet-stream",
                "X-GitHub-Delivery", d1, "X-Hub-Signature-256", Signing.github(GH_SECRET, binary));
        assertEquals("queued", verdict(r), r.body());
        assertArrayEquals(binary, StoredRows.byMessageId(messageId(r)).get(0).payload());
        api().get("/api/v1/messages/" + messageId(r)).then().statusCode(200)
                .body("payloadBase64", equalTo(Base64.getEncoder().encodeToString(binary)))
                .body("payload", nullValue())
                .body("contentType", equalTo("application/octet-stream"));

        // GitHub's form encoding: payload=<url-encoded JSON>
        byte[] form = utf8("payload=%7B%22zen%22%3A%22Keep+it+logically+awesome.%22%7D");
        HttpResponse<String> f = post("gh", form, "Content-Type", "application/x-www-form-urlencoded",
                "X-GitHub-Delivery", id(), "X-Hub-Signature-256", Signing.github(GH_SECRET, form));
        assertEquals("queued", verdict(f), f.body());
        assertArrayEquals(form, StoredRows.byMessageId(messageId(f)).get(0).payload());

        // a body that claims JSON but is not: stored as sent, shown as base64 (never as broken JSON)
        byte[] notJson = utf8("{\"truncated\":");
        HttpResponse<String> n = github("gh", notJson, id());
        assertEquals("queued", verdict(n), n.body());
        api().get("/api/v1/messages/" + messageId(n)).then().statusCode(200)
                .body("payloadBase64", equalTo(Base64.getEncoder().encodeToString(notJson)));
    }

    @Test
    void identicalBodiesWithDifferentDeliveryIdsAreBothStored() {
        byte[] body = utf8("{\"zen\":\"Non-blocking is better than blocking.\",\"hook_id\":1}");
        HttpResponse<String> a = github("gh", body, id());
        HttpResponse<String> b = github("gh", body, id());
        assertEquals("queued", verdict(a));
        assertEquals("queued", verdict(b));
        assertNotEquals(messageId(a), messageId(b));
        assertEquals(1, StoredRows.byMessageId(messageId(a)).size());
        assertEquals(1, StoredRows.byMessageId(messageId(b)).size());
    }

    @Test
    void aTamperedOrUnsignedDeliveryIs401AndWritesNothing() throws Exception {
        byte[] body = utf8("{\"action\":\"opened\",\"number\":1}");
        String delivery = id();
        long before = StoredRows.countAll();
        HttpResponse<String> tampered = post("gh", utf8("{\"action\":\"opened\",\"number\":2}"), "Content-Type",
                "application/json", "X-GitHub-Delivery", delivery, "X-Hub-Signature-256", Signing.github(GH_SECRET, body));
        assertProblem(tampered, 401, "/problems/invalid-signature");
        assertTrue(json(tampered).get("detail").asText().contains("X-Hub-Signature-256"));
        assertProblem(post("gh", body, "X-GitHub-Delivery", delivery), 401, "/problems/invalid-signature");
        assertProblem(post("gh", body, "X-GitHub-Delivery", delivery, "X-Hub-Signature-256",
                Signing.github("wrong secret", body)), 401, "/problems/invalid-signature");
        assertEquals(before, StoredRows.countAll());
        // the genuine delivery afterwards is new: the rejected ones left no trace
        assertEquals("queued", verdict(github("gh", body, delivery)));
    }

    @Test
    void aMissingKeyIs400NamingTheHeader() throws Exception {
        byte[] body = utf8("{\"zen\":\"x\"}");
        long before = StoredRows.countAll();
        HttpResponse<String> r = post("gh", body, "X-Hub-Signature-256", Signing.github(GH_SECRET, body));
        assertProblem(r, 400, "/problems/invalid-request");
        assertEquals("X-GitHub-Delivery", json(r).get("errors").get(0).get("field").asText());
        assertEquals(before, StoredRows.countAll());
    }

    @Test
    void aBodyOverTheLimitIs413() throws Exception {
        byte[] fits = new byte[64];
        java.util.Arrays.fill(fits, (byte) 'a');
        byte[] over = new byte[65];
        java.util.Arrays.fill(over, (byte) 'a');
        long before = StoredRows.countAll();
        assertProblem(github("gh-small", over, id()), 413, "/problems/payload-too-large");
        assertEquals(before, StoredRows.countAll());
        assertEquals("queued", verdict(github("gh-small", fits, id())));
    }

    @Test
    void anUnknownOrDisabledSourceIs404() throws Exception {
        byte[] body = utf8("{}");
        HttpResponse<String> unknown = github("nope", body, id());
        assertProblem(unknown, 404, "/problems/not-found");
        assertEquals("no webhook source named 'nope' is configured", json(unknown).get("detail").asText());
        HttpResponse<String> off = github("gh-off", body, id());
        assertProblem(off, 404, "/problems/not-found");
        assertEquals("webhook source 'gh-off' is not enabled: it has no signing secret (exactly.webhooks.sources.gh-off.secret is not set)",
                json(off).get("detail").asText(), "a configured source without a secret says so");
    }

    @Test
    void stripeRetriesAreResignedButKeyedByTheEventId() throws Exception {
        String secret = "whsec_stripe-test-secret";
        String event = "evt_" + UUID.randomUUID().toString().replace("-", "");
        byte[] body = utf8("{\"id\":\"" + event + "\",\"object\":\"event\",\"type\":\"invoice.paid\"}");
        long now = System.currentTimeMillis() / 1000;
        HttpResponse<String> first = post("stripe", body, "Content-Type", "application/json",
                "Stripe-Signature", Signing.stripe(secret, now - 10, body));
        assertEquals("queued", verdict(first), first.body());
        assertEquals(event, json(first).get("transactionId").asText());
        HttpResponse<String> retry = post("stripe", body, "Content-Type", "application/json",
                "Stripe-Signature", Signing.stripe(secret, now, body));
        assertEquals("duplicate", verdict(retry), retry.body());
        assertEquals(messageId(first), messageId(retry));
        assertProblem(post("stripe", body, "Stripe-Signature", Signing.stripe(secret, now - 3600, body)), 401,
                "/problems/invalid-signature");
        byte[] noId = utf8("{\"object\":\"event\"}");
        HttpResponse<String> missing = post("stripe", noId, "Stripe-Signature", Signing.stripe(secret, now, noId));
        assertProblem(missing, 400, "/problems/invalid-request");
        assertEquals("/id", json(missing).get("errors").get(0).get("field").asText());
    }

    /**
     * A header sent on several lines reaches the verifiers and key extractors as its lines joined
     * by "," (dev.exactly.http.FieldLines), exactly as API Gateway hands it to the Lambda shape
     * (LambdaRuntimeIT#repeatedHeadersAreCombinedAsApiGatewayCombinesThem checks the same
     * deliveries there).
     */
    @Test
    void aRepeatedHeaderIsReadAsItsLinesJoinedByComma() throws Exception {
        String secret = "whsec_stripe-test-secret";
        String event = "evt_" + UUID.randomUUID().toString().replace("-", "");
        byte[] body = utf8("{\"id\":\"" + event + "\",\"object\":\"event\"}");
        long now = System.currentTimeMillis() / 1000;
        // the valid v1 only on the second line: the combined value t=…,v1=<stale>,v1=<valid> verifies
        HttpResponse<String> stripe = post("stripe", body, "Content-Type", "application/json",
                "Stripe-Signature", "t=" + now + ",v1=" + Signing.stripeV1("whsec_rolled-away", now, body),
                "Stripe-Signature", "v1=" + Signing.stripeV1(secret, now, body));
        assertEquals("queued", verdict(stripe), stripe.body());

        String a = id();
        String b = id();
        byte[] gh = utf8("{\"zen\":\"repeated\",\"after\":\"" + a + "\"}");
        HttpResponse<String> r = post("gh", gh, "Content-Type", "application/json", "X-GitHub-Event", "push",
                "X-GitHub-Delivery", a, "X-GitHub-Delivery", b, "X-Hub-Signature-256", Signing.github(GH_SECRET, gh));
        assertEquals("queued", verdict(r), r.body());
        assertEquals(a + "," + b, json(r).get("transactionId").asText(), "the key is both lines, joined by ','");
        JsonNode kept = JSON.readTree(StoredRows.byMessageId(messageId(r)).get(0).headers());
        assertEquals(a + "," + b, kept.get("x-github-delivery").asText(), kept.toString());

        // a GitHub signature sent twice is one combined value that matches nothing
        assertProblem(post("gh", gh, "Content-Type", "application/json", "X-GitHub-Delivery", id(),
                "X-Hub-Signature-256", Signing.github(GH_SECRET, gh), "X-Hub-Signature-256", Signing.github(GH_SECRET, gh)),
                401, "/problems/invalid-signature");
    }

    @Test
    void standardWebhooksAreKeyedByWebhookId() throws Exception {
        String secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        String msg = "msg_" + UUID.randomUUID();
        byte[] body = utf8("{\"type\":\"contact.created\",\"data\":{\"id\":\"c1\"}}");
        long ts = System.currentTimeMillis() / 1000;
        String sig = Signing.standardWebhooks(secret, msg, ts, body);
        HttpResponse<String> first = post("standard-webhooks", body, "Content-Type", "application/json",
                "webhook-id", msg, "webhook-timestamp", Long.toString(ts), "webhook-signature", sig);
        assertEquals("queued", verdict(first), first.body());
        HttpResponse<String> again = post("standard-webhooks", body, "Content-Type", "application/json",
                "webhook-id", msg, "webhook-timestamp", Long.toString(ts), "webhook-signature", sig);
        assertEquals("duplicate", verdict(again));
        assertEquals(messageId(first), messageId(again));
        JsonNode headers = JSON.readTree(StoredRows.byMessageId(messageId(first)).get(0).headers());
        assertEquals(sig, headers.get("webhook-signature").asText());
        assertProblem(post("standard-webhooks", utf8("{\"type\":\"contact.deleted\"}"), "webhook-id", msg,
                "webhook-timestamp", Long.toString(ts), "webhook-signature", sig), 401, "/problems/invalid-signature");
    }

    @Test
    void contentHashKeysIgnoreKeyOrderAndVolatileFields() throws Exception {
        String order = UUID.randomUUID().toString();
        byte[] first = utf8("{\"tenant\":\"acme\",\"order\":\"" + order + "\",\"sent_at\":\"2026-01-01T00:00:00Z\","
                + "\"meta\":{\"attempt\":1,\"source\":\"shop\"}}");
        byte[] retry = utf8("{\"meta\":{\"source\":\"shop\",\"attempt\":2},\n \"sent_at\":\"2026-01-01T00:05:00Z\","
                + " \"order\":\"" + order + "\", \"tenant\":\"acme\"}");
        HttpResponse<String> a = hashed(first);
        assertEquals("queued", verdict(a), a.body());
        assertEquals("acme", json(a).get("partition").asText());
        assertTrue(json(a).get("transactionId").asText().startsWith("sha256:"));
        HttpResponse<String> b = hashed(retry);
        assertEquals("duplicate", verdict(b), b.body());
        assertEquals(messageId(a), messageId(b));
        // the stored bytes are the first delivery's, unchanged
        assertArrayEquals(first, StoredRows.byMessageId(messageId(a)).get(0).payload());
        // same content for another tenant: another partition, stored
        HttpResponse<String> other = hashed(utf8(new String(first, java.nio.charset.StandardCharsets.UTF_8)
                .replace("acme", "globex")));
        assertEquals("queued", verdict(other));
        assertEquals("globex", json(other).get("partition").asText());
        // a real change is a new event
        assertEquals("queued", verdict(hashed(utf8("{\"tenant\":\"acme\",\"order\":\"" + order + "\",\"total\":2}"))));
        HttpResponse<String> noTenant = hashed(utf8("{\"order\":\"x\"}"));
        assertProblem(noTenant, 400, "/problems/invalid-request");
        assertEquals("/tenant", json(noTenant).get("errors").get(0).get("field").asText());
    }

    /**
     * A delivery whose X-GitHub-Delivery carries the raw bytes {@code delivery} (no client library in
     * between that could refuse or re-encode them), over one HTTP/1.1 connection.
     *
     * @return the status line's code and the body, as "code body"
     */
    private static String githubRaw(byte[] delivery, byte[] body) throws Exception {
        try (java.net.Socket s = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), io.restassured.RestAssured.port)) {
            s.setSoTimeout(10_000);
            java.io.ByteArrayOutputStream head = new java.io.ByteArrayOutputStream();
            head.write(("POST /webhooks/gh HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
                    + "Content-Type: application/json\r\nX-GitHub-Event: push\r\nX-Hub-Signature-256: "
                    + Signing.github(GH_SECRET, body) + "\r\nContent-Length: " + body.length + "\r\nX-GitHub-Delivery: ")
                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            head.write(delivery);
            head.write("\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            head.write(body);
            s.getOutputStream().write(head.toByteArray());
            s.getOutputStream().flush();
            String answer = new String(s.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            return answer.substring(9, 12) + " " + answer.substring(answer.indexOf("\r\n\r\n") + 4);
        }
    }

    /**
     * A delivery id sent as raw UTF-8 (what a provider's non-ASCII id is on the wire) is the
     * transactionId the provider meant, the same as the push API stores for that text; an id whose
     * bytes are not UTF-8 (an ISO-8859-1 sender's) is read as ISO-8859-1 text, not refused.
     */
    @Test
    void aDeliveryIdInRawUtf8IsReadAsUtf8AndOneNotInUtf8AsIso88591() throws Exception {
        String delivery = "livr\u00e9e-\u65e5\u672c-" + id();
        byte[] body = utf8("{\"after\":\"" + id() + "\"}");
        String first = githubRaw(utf8(delivery), body);
        assertEquals("200", first.substring(0, 3), first);
        JsonNode receipt = JSON.readTree(first.substring(4));
        assertEquals(delivery, receipt.get("transactionId").asText());
        String id = receipt.get("messageId").asText();
        assertEquals(delivery, StoredRows.byMessageId(id).get(0).transactionId());
        // the redelivery is its duplicate, and so is a push of that transactionId through the API
        String again = githubRaw(utf8(delivery), body);
        assertEquals(id, JSON.readTree(again.substring(4)).get("messageId").asText(), again);
        api().body("{\"items\":[{\"queue\":\"webhooks.gh\",\"transactionId\":\"" + delivery + "\",\"payload\":{}}]}")
                .post("/api/v1/push").then().statusCode(200).body("results[0].status", equalTo("duplicate"))
                .body("results[0].messageId", equalTo(id));

        // é as one ISO-8859-1 byte: not UTF-8, so the ISO-8859-1 text
        String cafe = "caf\u00e9-" + id();
        String latin1 = githubRaw(cafe.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1), body);
        assertEquals("200", latin1.substring(0, 3), latin1);
        assertEquals(cafe, JSON.readTree(latin1.substring(4)).get("transactionId").asText(), latin1);
    }

    private static HttpResponse<String> hashed(byte[] body) {
        return post("hashed", body, "Content-Type", "application/json",
                "X-Signature", Signing.hmacBase64("hashed-test-secret", body));
    }
}
