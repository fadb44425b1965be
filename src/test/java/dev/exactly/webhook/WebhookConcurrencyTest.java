package dev.exactly.webhook;

import static dev.exactly.webhook.Signing.utf8;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.test.junit.QuarkusTest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Many senders redelivering the same deliveries at once: each delivery is stored exactly once and
 * every answer for it carries the same message id.
 */
@QuarkusTest
class WebhookConcurrencyTest {

    private static final int CLIENTS = 16;
    private static final int COPIES = 6;

    /** A post and the key it belongs to. */
    private record Post(String key, byte[] body, String[] headers) {
    }

    @Test
    void concurrentRedeliveriesAreStoredOnceByDeliveryId() throws Exception {
        String run = UUID.randomUUID().toString().substring(0, 8);
        List<Post> posts = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            String id = "conc-" + run + "-" + i;
            byte[] body = utf8("{\"n\":" + (i % 5) + "}"); // identical bodies across ids on purpose
            for (int c = 0; c < COPIES; c++) {
                posts.add(new Post(id, body, new String[] {"Content-Type", "application/json", "X-GitHub-Delivery", id,
                        "X-Hub-Signature-256", Signing.github("gh-test-secret", body)}));
            }
        }
        Map<String, List<HttpResponse<String>>> byKey = postAll("gh", posts);
        check(byKey);
        Set<String> stored = new HashSet<>();
        for (StoredRows.Row row : StoredRows.inQueue("webhooks.gh")) {
            if (row.transactionId().startsWith("conc-" + run)) {
                assertEquals(true, stored.add(row.transactionId()), "stored twice: " + row.transactionId());
            }
        }
        assertEquals(byKey.keySet(), stored);
    }

    @Test
    void concurrentContentVariantsAreStoredOnceByContentHash() throws Exception {
        String run = UUID.randomUUID().toString();
        List<Post> posts = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            String key = run + "-" + i;
            for (int c = 0; c < COPIES; c++) {
                // key order and the volatile fields differ per copy; the content does not
                String body = c % 2 == 0
                        ? "{\"tenant\":\"conc\",\"order\":\"" + key + "\",\"sent_at\":\"t" + c + "\",\"meta\":{\"attempt\":" + c + "}}"
                        : "{\"meta\":{\"attempt\":" + c + "},\"sent_at\":\"t" + c + "\",\"order\":\"" + key + "\",\"tenant\":\"conc\"}";
                byte[] b = utf8(body);
                posts.add(new Post(key, b, new String[] {"Content-Type", "application/json",
                        "X-Signature", Signing.hmacBase64("hashed-test-secret", b)}));
            }
        }
        Map<String, List<HttpResponse<String>>> byKey = postAll("hashed", posts);
        check(byKey);
        Set<String> ids = new HashSet<>();
        byKey.values().forEach(rs -> ids.add(WebhookClient.messageId(rs.get(0))));
        long rows = StoredRows.inQueue("webhooks.hashed").stream().filter(r -> ids.contains(r.messageId())).count();
        assertEquals(10, rows);
    }

    private static Map<String, List<HttpResponse<String>>> postAll(String source, List<Post> posts) throws Exception {
        Collections.shuffle(posts, new Random(42));
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
        try {
            List<Callable<HttpResponse<String>>> tasks = new ArrayList<>();
            for (Post p : posts) {
                tasks.add(() -> WebhookClient.post(source, p.body(), p.headers()));
            }
            List<Future<HttpResponse<String>>> results = pool.invokeAll(tasks);
            Map<String, List<HttpResponse<String>>> byKey = new HashMap<>();
            for (int i = 0; i < posts.size(); i++) {
                byKey.computeIfAbsent(posts.get(i).key(), k -> new ArrayList<>()).add(results.get(i).get());
            }
            return byKey;
        } finally {
            pool.shutdown();
        }
    }

    /** Every answer 200; per key exactly one queued, all with one message id. */
    private static void check(Map<String, List<HttpResponse<String>>> byKey) {
        byKey.forEach((key, responses) -> {
            Set<String> ids = new HashSet<>();
            int queued = 0;
            for (HttpResponse<String> r : responses) {
                assertEquals(200, r.statusCode(), key + ": " + r.body());
                ids.add(WebhookClient.messageId(r));
                queued += "queued".equals(WebhookClient.verdict(r)) ? 1 : 0;
            }
            assertEquals(1, queued, key + ": queued answers");
            assertEquals(1, ids.size(), key + ": message ids " + ids);
        });
    }
}
