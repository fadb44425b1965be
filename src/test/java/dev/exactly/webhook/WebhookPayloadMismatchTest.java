package dev.exactly.webhook;

import static dev.exactly.testing.Api.api;
import static dev.exactly.webhook.Signing.utf8;
import static dev.exactly.webhook.WebhookClient.messageId;
import static dev.exactly.webhook.WebhookClient.post;
import static dev.exactly.webhook.WebhookClient.verdict;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.exactly.testing.Db;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.http.HttpResponse;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A webhook redelivery whose body differs from the original delivery's: flagged in
 * the answer (payloadMatches, Exactly-Payload-Matches), counted per source, and refused with 422
 * when its queue's payloadMismatch option is "reject"; nothing is written in either case.
 */
@QuarkusTest
class WebhookPayloadMismatchTest {

    private static final String SECRET = "gh-test-secret";
    private static final ObjectMapper JSON = new ObjectMapper();

    @Inject
    MeterRegistry registry;

    private double counter(String name, String... tags) {
        var search = registry.find(name).tag("source", "mismatch");
        for (int i = 0; i < tags.length; i += 2) {
            search = search.tag(tags[i], tags[i + 1]);
        }
        return search.counter().count();
    }

    private static HttpResponse<String> deliver(String delivery, String body) {
        byte[] b = utf8(body);
        return post("mismatch", b, "X-GitHub-Delivery", delivery, "X-Hub-Signature-256", Signing.github(SECRET, b),
                "Content-Type", "application/json");
    }

    private static Optional<String> matchesHeader(HttpResponse<?> r) {
        return r.headers().firstValue("Exactly-Payload-Matches");
    }

    private static long stored(String delivery) {
        return Db.number("SELECT count(*) FROM exactly.messages WHERE transaction_id = '" + delivery + "'");
    }

    @Test
    void aRedeliveryWithAnotherBodyIsFlaggedCountedAndRejectedWhenTheQueueSaysSo() throws Exception {
        String delivery = UUID.randomUUID().toString();
        double mismatches = counter("exactly.webhook.deliveries.payload.mismatch");
        double duplicates = counter("exactly.webhook.deliveries.duplicate");
        double rejected = counter("exactly.webhook.deliveries.rejected", "reason", "payload-mismatch");

        HttpResponse<String> first = deliver(delivery, "{\"action\":\"opened\"}");
        assertEquals(200, first.statusCode());
        assertEquals("queued", verdict(first));
        assertTrue(matchesHeader(first).isEmpty(), "a stored delivery has nothing to compare");

        HttpResponse<String> same = deliver(delivery, "{\"action\":\"opened\"}");
        assertEquals("duplicate", verdict(same));
        assertEquals(Optional.of("true"), matchesHeader(same));
        assertTrue(JSON.readTree(same.body()).get("payloadMatches").booleanValue());

        HttpResponse<String> other = deliver(delivery, "{\"action\":\"closed\"}");
        assertEquals(200, other.statusCode(), "report (the default): answered as a duplicate, so the sender stops");
        assertEquals("duplicate", verdict(other));
        assertEquals(messageId(first), messageId(other));
        assertEquals(Optional.of("false"), matchesHeader(other));
        JsonNode body = JSON.readTree(other.body());
        assertEquals(false, body.get("payloadMatches").booleanValue());
        assertEquals(mismatches + 1, counter("exactly.webhook.deliveries.payload.mismatch"));
        assertEquals(duplicates + 2, counter("exactly.webhook.deliveries.duplicate"));

        api().body("{\"options\":{\"payloadMismatch\":\"reject\"}}").patch("/api/v1/queues/webhooks.mismatch")
                .then().statusCode(200).body("options.payloadMismatch", equalTo("reject"));
        try {
            HttpResponse<String> refused = deliver(delivery, "{\"action\":\"closed\"}");
            assertEquals(422, refused.statusCode());
            assertEquals("application/problem+json", refused.headers().firstValue("Content-Type").orElse(""));
            JsonNode problem = JSON.readTree(refused.body());
            assertEquals("/problems/payload-mismatch", problem.get("type").textValue());
            assertTrue(problem.get("detail").textValue().contains(messageId(first)), refused.body());
            assertEquals(mismatches + 2, counter("exactly.webhook.deliveries.payload.mismatch"));
            assertEquals(rejected + 1, counter("exactly.webhook.deliveries.rejected", "reason", "payload-mismatch"));
            assertEquals(duplicates + 2, counter("exactly.webhook.deliveries.duplicate"), "a refusal is no duplicate");

            assertEquals("duplicate", verdict(deliver(delivery, "{\"action\":\"opened\"}")), "the same body still is");
        } finally {
            api().body("{\"options\":{\"payloadMismatch\":\"report\"}}").patch("/api/v1/queues/webhooks.mismatch")
                    .then().statusCode(200);
        }
        assertEquals(1, stored(delivery), "only the first delivery was stored");
        String text = io.restassured.RestAssured.given().get("/q/metrics").then().statusCode(200).extract().asString();
        assertTrue(text.contains("exactly_webhook_deliveries_payload_mismatch_total{source=\"mismatch\"}"), "served");
    }
}
