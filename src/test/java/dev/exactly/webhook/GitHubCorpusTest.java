package dev.exactly.webhook;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.junit.QuarkusTest;
import java.io.BufferedReader;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Replays the 565 recorded GitHub deliveries of ../shared/corpus, in order, against the source
 * {@code github} (queue webhooks.github) and checks every answer and what the database holds.
 */
@QuarkusTest
class GitHubCorpusTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void eachDistinctDeliveryIsStoredExactlyOnceRetriesAreDuplicatesTamperedAreRejected() throws Exception {
        Corpus.assumePresent();
        JsonNode expected = JSON.readTree(Corpus.EXPECTED.toFile());
        Map<String, String> messageIdByDelivery = new HashMap<>();
        Map<String, byte[]> bodyByDelivery = new HashMap<>();
        Set<ByteBuffer> storedBodies = new HashSet<>();
        int posts = 0;
        int retries = 0;
        int tampered = 0;
        int sameBodyOtherId = 0;
        try (BufferedReader r = Files.newBufferedReader(Corpus.DELIVERIES, StandardCharsets.UTF_8)) {
            String line;
            while ((line = r.readLine()) != null) {
                posts++;
                JsonNode d = JSON.readTree(line);
                byte[] body = d.get("body").textValue().getBytes(StandardCharsets.UTF_8);
                List<String> headers = new ArrayList<>();
                d.get("headers").fields().forEachRemaining(h -> {
                    headers.add(h.getKey());
                    headers.add(h.getValue().textValue());
                });
                String id = d.get("headers").get("X-GitHub-Delivery").textValue();
                String where = "line " + posts + " (" + id + ")";
                if (d.path("tampered").asBoolean(false)) {
                    tampered++;
                    long before = StoredRows.countAll();
                    HttpResponse<String> resp = WebhookClient.post("github", body, headers.toArray(String[]::new));
                    assertEquals(401, resp.statusCode(), where + ": " + resp.body());
                    assertTrue(resp.body().contains("/problems/invalid-signature"), where + ": " + resp.body());
                    assertEquals(before, StoredRows.countAll(), where + ": a rejected delivery wrote a row");
                    continue;
                }
                HttpResponse<String> resp = WebhookClient.post("github", body, headers.toArray(String[]::new));
                assertEquals(200, resp.statusCode(), where + ": " + resp.body());
                String original = messageIdByDelivery.get(id);
                if (original != null) {
                    retries++;
                    assertEquals("duplicate", WebhookClient.verdict(resp), where);
                    assertEquals(original, WebhookClient.messageId(resp), where + ": a retry must carry the original id");
                } else {
                    assertEquals("queued", WebhookClient.verdict(resp), where);
                    messageIdByDelivery.put(id, WebhookClient.messageId(resp));
                    bodyByDelivery.put(id, body);
                    if (!storedBodies.add(ByteBuffer.wrap(body))) {
                        sameBodyOtherId++;
                    }
                }
            }
        }
        assertEquals(expected.get("total_posts").asInt(), posts);
        assertEquals(expected.get("distinct_deliveries").asInt(), messageIdByDelivery.size());
        assertEquals(expected.get("retries").asInt(), retries);
        assertEquals(expected.get("tampered").asInt(), tampered);
        assertEquals(expected.get("same_body_other_id").asInt(), sameBodyOtherId);

        // the database: one row per distinct delivery, under its original message id, with its exact bytes
        List<StoredRows.Row> rows = StoredRows.inQueue("webhooks.github");
        assertEquals(messageIdByDelivery.size(), rows.size());
        Set<String> seen = new HashSet<>();
        for (StoredRows.Row row : rows) {
            assertTrue(seen.add(row.transactionId()), "stored twice: " + row.transactionId());
            assertEquals(messageIdByDelivery.get(row.transactionId()), row.messageId(), row.transactionId());
            assertArrayEquals(bodyByDelivery.get(row.transactionId()), row.payload(), row.transactionId());
        }
        assertEquals(messageIdByDelivery.keySet(), seen);
    }
}
