package dev.exactly.consume;

import static dev.exactly.consume.ConsumeFixtures.completeAll;
import static dev.exactly.consume.ConsumeFixtures.partitionId;
import static dev.exactly.consume.ConsumeFixtures.sql;
import static dev.exactly.testing.Api.api;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * A pop answer stays within its byte budget (exactly.consume.max-answer-bytes): messages go out in
 * offset order while they fit, a message larger than the budget goes out alone, and the partition
 * drains.
 */
@QuarkusTest
class PopBudgetTest {

    @Inject
    Pool pool;

    @ConfigProperty(name = "exactly.consume.max-answer-bytes", defaultValue = "8388608")
    long maxAnswerBytes;

    /** Pushes one message whose payload is a JSON string of {@code bytes} characters (plus its quotes). */
    private static String pushBig(String queue, String txn, int bytes, char fill) {
        String payload = "\"" + String.valueOf(fill).repeat(bytes) + "\"";
        String body = "{\"items\":[{\"queue\":\"" + queue + "\",\"partition\":\"p\",\"transactionId\":\"" + txn
                + "\",\"payload\":" + payload + "}]}";
        return api().body(body).post("/api/v1/push").then().statusCode(200).extract().path("results[0].messageId");
    }

    /** exactly.pop with an explicit budget; returns the offsets delivered. */
    private List<Long> popSql(String queue, long budget, int batch) {
        List<Long> offsets = new ArrayList<>();
        for (Row r : sql(pool, "SELECT \"offset\" FROM exactly.pop($1, 'p', 'g', $2, 60, $3)", queue, batch, budget)) {
            offsets.add(r.getLong(0));
        }
        return offsets;
    }

    private void settle(String queue, List<Long> offsets) {
        long pid = partitionId(pool, queue, "p");
        sql(pool, "UPDATE exactly.consumer_cursors SET next_offset = $1, lease_id = NULL, lease_from = NULL, "
                + "lease_to = NULL, lease_expires_at = NULL WHERE partition_id = $2 AND consumer_group = 'g'",
                offsets.get(offsets.size() - 1) + 1, pid);
    }

    @Test
    void aSmallBudgetSplitsTheBacklogAndAnOversizedMessageGoesOutAlone() {
        String q = "pb-small";
        // 10 messages of 100,002 payload bytes: each counts 4 * 33,334 + 6 * 2 + 1024 = 134,372
        for (int i = 0; i < 10; i++) {
            pushBig(q, "t" + i, 100_000, 'a');
        }
        pushBig(q, "huge", 1_000_000, 'b');
        pushBig(q, "after", 10, 'c');
        List<Long> all = new ArrayList<>();
        List<Integer> sizes = new ArrayList<>();
        for (int round = 0; round < 20; round++) {
            List<Long> got = popSql(q, 300_000, 80);
            if (got.isEmpty()) {
                break;
            }
            sizes.add(got.size());
            all.addAll(got);
            settle(q, got);
        }
        // 2 fit in 300,000 (268,744), 3 do not; the 1 MB message is over the budget: alone
        assertEquals(List.of(2, 2, 2, 2, 2, 1, 1), sizes);
        for (int i = 0; i < all.size(); i++) {
            assertEquals(i, all.get(i), "offset order, nothing skipped");
        }
        // no budget: the batch alone decides
        assertEquals(12, sql(pool, "SELECT count(*) FROM exactly.pop('pb-small', 'p', 'g2', 80, 60)")
                .iterator().next().getLong(0));
    }

    @Test
    void aPopOfMessagesOfAFewMegabytesStaysWithinTheConfiguredBudgetAndDrains() {
        String q = "pb-real";
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ids.add(pushBig(q, "big" + i, 2_500_000, (char) ('k' + i)));
        }
        List<Map<String, Object>> delivered = new ArrayList<>();
        for (int round = 0; round < 10 && delivered.size() < 4; round++) {
            Response r = api().body(Map.of("queue", q, "consumerGroup", "g", "batch", 80)).post("/api/v1/pop");
            assertEquals(200, r.statusCode(), r.asString());
            byte[] answer = r.asByteArray();
            assertTrue(answer.length <= maxAnswerBytes, "answer of " + answer.length + " bytes, budget " + maxAnswerBytes);
            List<Map<String, Object>> got = r.jsonPath().getList("messages");
            assertTrue(!got.isEmpty(), "the partition drains");
            delivered.addAll(got);
            completeAll(got, "g");
        }
        assertEquals(ids, delivered.stream().map(m -> m.get("messageId")).toList());
        assertTrue(api().body(Map.of("queue", q, "consumerGroup", "g", "batch", 80)).post("/api/v1/pop")
                .then().statusCode(200).extract().jsonPath().getList("messages").isEmpty());
    }
}
