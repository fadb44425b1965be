package dev.exactly.transaction;

import static dev.exactly.consume.ConsumeFixtures.ack;
import static dev.exactly.consume.ConsumeFixtures.ackById;
import static dev.exactly.consume.ConsumeFixtures.ackByTxn;
import static dev.exactly.consume.ConsumeFixtures.options;
import static dev.exactly.consume.ConsumeFixtures.pop;
import static dev.exactly.consume.ConsumeFixtures.push;
import static dev.exactly.consume.ConsumeFixtures.sql;
import static dev.exactly.testing.Api.api;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** POST /api/v1/transaction: all or nothing, against the embedded PostgreSQL. */
@QuarkusTest
class TransactionTest {

    @Inject
    Pool pool;

    private static Map<String, Object> pushOp(Map<String, Object>... items) {
        return Map.of("type", "push", "items", List.of(items));
    }

    private static Map<String, Object> item(String queue, String partition, String txn, Object payload) {
        Map<String, Object> i = new LinkedHashMap<>();
        i.put("queue", queue);
        i.put("partition", partition);
        if (txn != null) {
            i.put("transactionId", txn);
        }
        i.put("payload", payload);
        return i;
    }

    private static Map<String, Object> ackOp(Map<String, Object> ack) {
        Map<String, Object> op = new LinkedHashMap<>(ack);
        op.put("type", "ack");
        return op;
    }

    /** Everything a rolled-back transaction could have touched, as one comparable snapshot. */
    private List<String> state() {
        List<String> out = new ArrayList<>();
        for (String q : List.of(
                "SELECT 'messages', count(*) FROM exactly.messages",
                "SELECT 'hashes', count(*) FROM exactly.txn_hashes",
                "SELECT 'partitions', count(*) FROM exactly.partitions",
                "SELECT 'allocated', COALESCE(sum(last_offset), 0) FROM exactly.partitions",
                "SELECT 'deliveries', count(*) FROM exactly.deliveries",
                "SELECT 'cursors', count(*) || ':' || COALESCE(string_agg(next_offset || '/' || COALESCE(lease_to, -1) || '/' "
                        + "|| COALESCE(lease_id::text, '-'), ',' ORDER BY partition_id, consumer_group), '') "
                        + "FROM exactly.consumer_cursors")) {
            Row r = sql(pool, q).iterator().next();
            out.add(r.getString(0) + "=" + r.getValue(1));
        }
        return out;
    }

    @Test
    void pushesAndAcksCommitTogether() {
        push("t-src", "p", "in-1", "{\"n\":1}");
        Map<String, Object> m = pop("t-src", "p", "g", 1).get(0);
        var body = Map.of("operations", List.of(
                ackOp(ackById(m, "g", "completed")),
                pushOp(item("t-dst", "p", "out-1", Map.of("from", "in-1")), item("t-dst", "q", null, 2))));
        var r = api().body(body).post("/api/v1/transaction").then().statusCode(200).extract().jsonPath();
        assertEquals("ack", r.getString("results[0].type"));
        assertEquals("acked", r.getString("results[0].ack.result"));
        assertEquals("completed", r.getString("results[0].ack.outcome"));
        assertEquals("push", r.getString("results[1].type"));
        assertEquals(List.of("queued", "queued"), r.getList("results[1].items.status"));
        assertEquals(List.of(0, 1), r.getList("results[1].items.index"));

        assertTrue(pop("t-src", "p", "g", 5).isEmpty(), "the ack committed");
        List<Map<String, Object>> out = pop("t-dst", "p", "g", 5);
        assertEquals(1, out.size());
        assertEquals("out-1", out.get(0).get("transactionId"));
        assertEquals(r.getString("results[1].items[0].messageId"), out.get(0).get("messageId"));
    }

    @Test
    void aDuplicatePushRollsEverythingBack() {
        String original = (String) push("t-dup-dst", "p", "dup-1", "1").get("messageId");
        push("t-dup-src", "p", "in-1", "{}");
        Map<String, Object> m = pop("t-dup-src", "p", "g", 1).get(0);
        List<String> before = state();

        var body = Map.of("operations", List.of(
                ackOp(ackById(m, "g", "completed")),
                pushOp(item("t-dup-dst", "p", "new-1", 1), item("t-dup-dst", "p", "dup-1", 2)),
                pushOp(item("t-dup-other", "p", "new-2", 3))));
        api().body(body).post("/api/v1/transaction").then().statusCode(409)
                .contentType(containsString("application/problem+json"))
                .body("type", equalTo("/problems/duplicate"))
                .body("status", equalTo(409))
                .body("operation", equalTo(1))
                .body("item", equalTo(1))
                .body("transactionId", equalTo("dup-1"))
                .body("originalMessageId", equalTo(original))
                .body("detail", containsString("operations[1].items[1]"));

        assertEquals(before, state(), "nothing of the transaction was applied");
        // the ack was rolled back too: the lease still holds the message and can ack it now
        ack(ackById(m, "g", "completed")).then().statusCode(200).body("replay", nullValue());
    }

    @Test
    void aDuplicateInsideTheTransactionRollsEverythingBack() {
        push("t-intra-src", "p", "in-1", "{}");
        Map<String, Object> m = pop("t-intra-src", "p", "g", 1).get(0);
        List<String> before = state();
        var body = Map.of("operations", List.of(
                pushOp(item("t-intra", "p", "same", 1)),
                ackOp(ackById(m, "g", "completed")),
                pushOp(item("t-intra", "x", "same", 2), item("t-intra", "p", "same", 3))));
        api().body(body).post("/api/v1/transaction").then().statusCode(409)
                .body("type", equalTo("/problems/duplicate"))
                .body("operation", equalTo(2))
                .body("item", equalTo(1))
                .body("duplicateOf", equalTo("operations[0].items[0]"));
        assertEquals(before, state());
    }

    @Test
    void aPartitionCreatedByARolledBackTransactionIsCreatedAgainByTheNextOne() {
        push("t-gone-dup", "p", "dup", "1");
        String fresh = "t-gone-" + java.util.UUID.randomUUID();
        // two partitions (a bundle): the new one is created, then rolled back with the duplicate
        api().body(Map.of("operations", List.of(pushOp(item(fresh, "p", "a", 1), item("t-gone-dup", "p", "dup", 2)))))
                .post("/api/v1/transaction").then().statusCode(409);
        // the same new partition alone (one segment): it must not be addressed by the vanished id
        api().body(Map.of("operations", List.of(pushOp(item(fresh, "p", "a", 1))))).post("/api/v1/transaction")
                .then().statusCode(200).body("results[0].items[0].status", equalTo("queued"));
        api().body(Map.of("operations", List.of(pushOp(item(fresh, "p", "b", 1))))).post("/api/v1/transaction")
                .then().statusCode(200).body("results[0].items[0].status", equalTo("queued"));
    }

    @Test
    void anUnresolvedAckRollsEverythingBack() {
        push("t-unres-src", "p", "in-1", "{}");
        Map<String, Object> m = pop("t-unres-src", "p", "g", 1).get(0);
        List<String> before = state();
        var body = Map.of("operations", List.of(
                pushOp(item("t-unres-dst", "p", "new-1", 1)),
                ackOp(ackById(m, "g", "completed")),
                ackOp(ackByTxn("t-unres-src", "p", "never-pushed", m.get("leaseId"), "g", "completed"))));
        api().body(body).post("/api/v1/transaction").then().statusCode(409)
                .contentType(containsString("application/problem+json"))
                .body("type", equalTo("/problems/unresolved"))
                .body("operation", equalTo(2))
                .body("transactionId", equalTo("never-pushed"));
        assertEquals(before, state(), "the push and the good ack were rolled back");
        assertTrue(pop("t-unres-dst", null, "g", 5).isEmpty());
    }

    @Test
    void anAckWithoutItsLeaseRollsEverythingBack() {
        push("t-lease-src", "p", "in-1", "{}");
        Map<String, Object> m = pop("t-lease-src", "p", "g", 1).get(0);
        Map<String, Object> stale = ackById(m, "g", "completed");
        stale.put("leaseId", "00000000-0000-0000-0000-00000000abcd");
        List<String> before = state();
        api().body(Map.of("operations", List.of(pushOp(item("t-lease-dst", "p", "n", 1)), ackOp(stale))))
                .post("/api/v1/transaction").then().statusCode(409)
                .body("type", equalTo("/problems/lease-mismatch"))
                .body("operation", equalTo(1));
        assertEquals(before, state());
    }

    @Test
    void aDeadLetteringAckAndPushesCommitTogether() {
        options("t-dlq-src", Map.of("retryLimit", 0));
        push("t-dlq-src", "p", "in-1", "{}");
        Map<String, Object> m = pop("t-dlq-src", "p", "g", 1).get(0);
        var r = api().body(Map.of("operations", List.of(ackOp(ackById(m, "g", "failed")),
                        pushOp(item("t-dlq-src.dlq", "p", "manual", 1)))))
                .post("/api/v1/transaction").then().statusCode(200).extract().jsonPath();
        assertEquals("dead-lettered", r.getString("results[0].ack.outcome"));
        assertEquals(2, pop("t-dlq-src.dlq", "p", "g", 5).size());
    }

    @Test
    void badTransactionsAre400AndWriteNothing() {
        List<String> before = state();
        api().body(Map.of("operations", List.of(pushOp(item("t-bad", "p", "a", 1)),
                        Map.of("type", "push", "items", List.of(Map.of("partition", "p", "payload", 1))))))
                .post("/api/v1/transaction").then().statusCode(400)
                .contentType(containsString("application/problem+json"))
                .body("errors.field", hasItem("operations[1].items[0].queue"));
        api().body(Map.of("operations", List.of(Map.of("type", "pop")))).post("/api/v1/transaction")
                .then().statusCode(400).body("errors.field", hasItem("operations[0].type"));
        api().body(Map.of("operations", List.of(Map.of("type", "ack", "status", "completed"))))
                .post("/api/v1/transaction").then().statusCode(400)
                .body("errors.field", hasItem("operations[0].leaseId"));
        api().body("{\"operations\":[").post("/api/v1/transaction").then().statusCode(400);
        api().body("{\"operations\":[{\"type\":\"push\",\"items\":[{\"queue\":\"t-bad\",\"payload\":{\"k\":\"\\ud800\"}}]}]}")
                .post("/api/v1/transaction").then().statusCode(400)
                .body("errors.field", hasItem("operations[0].items[0].payload.k"));
        assertEquals(before, state());
        // an empty transaction is refused as bad input
        api().body(Map.of("operations", List.of())).post("/api/v1/transaction").then().statusCode(400)
                .contentType(containsString("application/problem+json")).body("errors[0].field", equalTo("operations"));
    }
}
