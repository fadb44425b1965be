package dev.exactly.consume;

import static dev.exactly.consume.ConsumeFixtures.ackById;
import static dev.exactly.testing.Api.api;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.exactly.webhook.Signing;
import dev.exactly.webhook.WebhookClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

/**
 * A webhook delivery labelled application/json whose body is not JSON (or is empty) is consumable:
 * pop answers it as payloadBase64, never as raw bytes inlined into the JSON answer, as GET of the
 * message does; so is its dead-letter copy. Acks and transactions answer without payloads.
 */
@QuarkusTest
class NonJsonPayloadTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SOURCE = "gh-consume";
    private static final String QUEUE = "webhooks.gh-consume";

    private static String deliver(byte[] body) {
        HttpResponse<String> r = WebhookClient.post(SOURCE, body, "Content-Type", "application/json",
                "X-GitHub-Event", "push", "X-GitHub-Delivery", UUID.randomUUID().toString(),
                "X-Hub-Signature-256", Signing.github("gh-test-secret", body));
        assertEquals("queued", WebhookClient.verdict(r), r.body());
        return WebhookClient.messageId(r);
    }

    /** Pops everything for the group, parsing the answer strictly; returns the messages by id. */
    private static Map<String, JsonNode> popAll(String queue, String group) throws Exception {
        String raw = api().body(Map.of("queue", queue, "consumerGroup", group, "batch", 1000)).post("/api/v1/pop")
                .then().statusCode(200).extract().asString();
        JsonNode answer = JSON.readTree(raw); // fails on "payload":not json
        Map<String, JsonNode> byId = new HashMap<>();
        for (JsonNode m : answer.get("messages")) {
            byId.put(m.get("messageId").asText(), m);
        }
        return byId;
    }

    private static String b64(byte[] b) {
        return Base64.getEncoder().encodeToString(b);
    }

    @Test
    void popAnswersBodiesThatAreNotJsonAsBase64() throws Exception {
        byte[] notJson = "not json".getBytes(StandardCharsets.UTF_8);
        byte[] truncated = "{\"truncated\":".getBytes(StandardCharsets.UTF_8);
        byte[] empty = new byte[0];
        byte[] json = "{\"zen\": \"ok\"}".getBytes(StandardCharsets.UTF_8);
        String a = deliver(notJson);
        String b = deliver(truncated);
        String c = deliver(empty);
        String d = deliver(json);
        String group = "g-" + UUID.randomUUID();
        Map<String, JsonNode> got = popAll(QUEUE, group);
        assertEquals(b64(notJson), got.get(a).get("payloadBase64").asText());
        assertFalse(got.get(a).has("payload"));
        assertEquals(b64(truncated), got.get(b).get("payloadBase64").asText());
        assertEquals("", got.get(c).get("payloadBase64").asText());
        assertFalse(got.get(c).has("payload"));
        assertEquals("ok", got.get(d).get("payload").get("zen").asText(), "JSON is still inlined");
        assertNull(got.get(d).get("payloadBase64"));
        // the same form as GET /api/v1/messages/{id}
        for (String id : List.of(a, b, c, d)) {
            JsonNode view = JSON.readTree(api().get("/api/v1/messages/" + id).then().statusCode(200).extract().asString());
            assertEquals(view.get("payloadBase64"), got.get(id).get("payloadBase64"));
            assertEquals(view.get("payload"), got.get(id).get("payload"));
        }

        // acks (one in a transaction) answer valid JSON; the dead-letter copy pops as base64 too
        Map<String, Object> ackA = ackById(JSON.convertValue(got.get(a), Map.class), group, "dlq");
        String ackAnswer = api().body(ackA).post("/api/v1/ack").then().statusCode(200).extract().asString();
        assertEquals("dead-lettered", JSON.readTree(ackAnswer).get("outcome").asText());
        Map<String, Object> ackB = new HashMap<>(ackById(JSON.convertValue(got.get(b), Map.class), group, "completed"));
        ackB.put("type", "ack");
        String txAnswer = api().body(Map.of("operations", List.of(ackB))).post("/api/v1/transaction")
                .then().statusCode(200).extract().asString();
        assertEquals("acked", JSON.readTree(txAnswer).get("results").get(0).get("ack").get("result").asText());

        Map<String, JsonNode> dead = popAll(QUEUE + ".dlq", group);
        assertEquals(1, dead.size());
        JsonNode copy = dead.values().iterator().next();
        assertEquals(b64(notJson), copy.get("payloadBase64").asText());
        assertEquals("application/json", copy.get("contentType").asText());
    }
}
