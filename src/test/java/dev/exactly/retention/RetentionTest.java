package dev.exactly.retention;

import static dev.exactly.consume.ConsumeFixtures.ack;
import static dev.exactly.consume.ConsumeFixtures.ackById;
import static dev.exactly.consume.ConsumeFixtures.ackByTxn;
import static dev.exactly.consume.ConsumeFixtures.age;
import static dev.exactly.consume.ConsumeFixtures.longOf;
import static dev.exactly.consume.ConsumeFixtures.maintenance;
import static dev.exactly.consume.ConsumeFixtures.options;
import static dev.exactly.consume.ConsumeFixtures.partitionId;
import static dev.exactly.consume.ConsumeFixtures.pop;
import static dev.exactly.consume.ConsumeFixtures.push;
import static dev.exactly.consume.ConsumeFixtures.pushMany;
import static dev.exactly.consume.ConsumeFixtures.sql;
import static dev.exactly.testing.Api.api;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Transaction;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Retention and the deduplication edges it must keep (those the Queen message queue's
 * documentation lists under "Deduplication", "The edges": a duplicate whose original was purged
 * answers duplicate with the zero UUID, a redelivery after the window is accepted as new), against
 * the embedded PostgreSQL. Time is moved by setting created_at back, never by sleeping.
 */
@QuarkusTest
class RetentionTest {

    private static final String ZERO = "00000000-0000-0000-0000-000000000000";

    @Inject
    Pool pool;

    private long count(String table, String queue, String partition) {
        return longOf(pool, "SELECT count(*) FROM exactly." + table + " WHERE partition_id = $1",
                partitionId(pool, queue, partition));
    }

    private long watermark(String column, String queue, String partition) {
        return longOf(pool, "SELECT " + column + " FROM exactly.partitions WHERE id = $1",
                partitionId(pool, queue, partition));
    }

    @Test
    void dataPurgedButHashStillInTheWindowAnswersDuplicateWithTheZeroUuid() {
        options("r-zero", Map.of("retentionSeconds", 60, "dedupWindowSeconds", 3600));
        String original = (String) push("r-zero", "p", "k1", "1").get("messageId");
        push("r-zero", "p", "k2", "2");
        age(pool, "r-zero", "p", 0, 1, 120, true, false);

        maintenance();

        assertEquals(0, count("messages", "r-zero", "p"), "data past retention purged");
        assertEquals(2, count("txn_hashes", "r-zero", "p"), "hashes inside the window kept");
        assertEquals(2, watermark("data_start", "r-zero", "p"));
        assertEquals(0, watermark("txns_start", "r-zero", "p"));
        api().get("/api/v1/messages/" + original).then().statusCode(404);

        Map<String, Object> again = push("r-zero", "p", "k1", "1");
        assertEquals("duplicate", again.get("status"));
        assertEquals(ZERO, again.get("messageId"), "the original cannot be read back");
        assertEquals(1, watermark("last_offset", "r-zero", "p"), "a duplicate allocates nothing");
    }

    @Test
    void aHashPurgedAfterTheWindowIsAcceptedAsNew() {
        options("r-new", Map.of("retentionSeconds", 60, "dedupWindowSeconds", 2));
        String original = (String) push("r-new", "p", "h1", "1").get("messageId");
        age(pool, "r-new", "p", 0, 0, 120, true, true);

        maintenance();

        assertEquals(0, count("txn_hashes", "r-new", "p"), "the hash is gone");
        assertEquals(1, watermark("txns_start", "r-new", "p"), "the purge watermark moved past it");
        assertEquals(1, watermark("data_start", "r-new", "p"));

        Map<String, Object> again = push("r-new", "p", "h1", "1");
        assertEquals("queued", again.get("status"));
        assertNotEquals(original, again.get("messageId"));
        assertEquals(1, count("messages", "r-new", "p"));
        assertEquals(1, count("txn_hashes", "r-new", "p"));
    }

    @Test
    void aPurgeNeverRemovesAHashStillInsideTheWindow() {
        options("r-window", Map.of("retentionSeconds", 60, "dedupWindowSeconds", 3600));
        pushMany("r-window", "p", "t", 10);
        age(pool, "r-window", "p", 0, 9, 7200, true, false);
        age(pool, "r-window", "p", 0, 4, 7200, false, true);   // hashes 0..4: outside the window
        age(pool, "r-window", "p", 5, 9, 1800, false, true);   // hashes 5..9: inside it
        age(pool, "r-window", "p", 7, 7, 5400, false, true);   // 7 is outside, but above an inside one

        maintenance();
        maintenance();

        assertEquals(10, watermark("data_start", "r-window", "p"));
        assertEquals(5, watermark("txns_start", "r-window", "p"), "the purge stops at the first hash in the window");
        long pid = partitionId(pool, "r-window", "p");
        List<Long> kept = new ArrayList<>();
        for (Row r : sql(pool, "SELECT \"offset\" FROM exactly.txn_hashes WHERE partition_id = $1 ORDER BY 1", pid)) {
            kept.add(r.getLong(0));
        }
        assertEquals(List.of(5L, 6L, 7L, 8L, 9L), kept);
        assertEquals(0, longOf(pool, "SELECT count(*) FROM exactly.txn_hashes WHERE partition_id = $1 "
                + "AND created_at >= now() - interval '3600 seconds' AND \"offset\" < 5", pid));

        for (int i = 0; i < 5; i++) {
            assertEquals("queued", push("r-window", "p", "t" + i, "0").get("status"), "t" + i + " left the window");
        }
        for (int i : new int[] {5, 6, 8, 9}) {
            Map<String, Object> r = push("r-window", "p", "t" + i, "0");
            assertEquals("duplicate", r.get("status"), "t" + i + " is still inside the window");
            assertEquals(ZERO, r.get("messageId"));
        }
    }

    @Test
    void aPurgeNeverBlocksPushesToOtherPartitions() throws Exception {
        options("r-block", Map.of("retentionSeconds", 60, "dedupWindowSeconds", 1));
        pushMany("r-block", "a", "t", 100);
        push("r-block", "b", "first", "1");
        age(pool, "r-block", "a", 0, 99, 120, true, true);
        long a = partitionId(pool, "r-block", "a");

        SqlConnection conn = pool.getConnection().await().indefinitely();
        Transaction tx = conn.begin().await().indefinitely();
        boolean committed = false;
        CompletableFuture<Map<String, Object>> sameAsPurge = null;
        try {
            Row step = conn.preparedQuery("SELECT * FROM exactly.purge_partition($1, $2)")
                    .execute(Tuple.of(a, 1000)).await().indefinitely().iterator().next();
            assertEquals(100, step.getInteger("purged_messages"));
            // the purge step of partition a is open and holds a's row lock
            assertEquals("queued", push("r-block", "b", "second", "2").get("status"), "another partition");
            assertEquals("queued", push("r-block-other", "a", "x", "3").get("status"), "another queue");
            assertEquals("duplicate", push("r-block", "b", "first", "1").get("status"));
            assertFalse(pop("r-block", "b", "g", 10).isEmpty(), "consumption of another partition");
            // a push to the purged partition itself waits for the step to end
            sameAsPurge = CompletableFuture.supplyAsync(() -> push("r-block", "a", "after", "4"));
            Thread.sleep(300);
            assertFalse(sameAsPurge.isDone(), "the same partition waits for the step");
            tx.commit().await().indefinitely();
            committed = true;
        } finally {
            if (!committed) {
                tx.rollback().await().indefinitely();
            }
            conn.close().await().indefinitely();
        }
        Map<String, Object> after = sameAsPurge.get();
        assertEquals("queued", after.get("status"));
        assertEquals(1, count("messages", "r-block", "a"));
        assertEquals(100, watermark("data_start", "r-block", "a"));
    }

    @Test
    void aRunPurgesInBoundedSteps() {
        // exactly.maintenance.batch-size is 50 in the test profile
        options("r-steps", Map.of("retentionSeconds", 60, "dedupWindowSeconds", 1));
        pushMany("r-steps", "p", "t", 120);
        age(pool, "r-steps", "p", 0, 119, 120, true, true);
        Map<String, Object> report = maintenance();
        assertTrue(((Number) report.get("steps")).intValue() >= 3, report.toString());
        assertTrue(((Number) report.get("purgedMessages")).longValue() >= 120, report.toString());
        assertTrue(((Number) report.get("purgedHashes")).longValue() >= 120, report.toString());
        assertEquals(Boolean.FALSE, report.get("more"));
        assertEquals(120, watermark("data_start", "r-steps", "p"));
        assertEquals(120, watermark("txns_start", "r-steps", "p"));
        assertEquals(0, count("messages", "r-steps", "p"));
        assertEquals(0, count("txn_hashes", "r-steps", "p"));
    }

    @Test
    void queuesThatKeepDataForeverAreNotPurged() {
        options("r-forever", Map.of("dedupWindowSeconds", 1));
        pushMany("r-forever", "p", "t", 3);
        age(pool, "r-forever", "p", 0, 2, 86_400, true, true);
        maintenance();
        assertEquals(3, count("messages", "r-forever", "p"));
        assertEquals(3, count("txn_hashes", "r-forever", "p"), "hashes live as long as their data");
        assertEquals("queued", push("r-forever", "p", "t0", "0").get("status"), "outside the window all the same");
    }

    @Test
    void acksOfPurgedMessagesAreUnresolved() {
        options("r-ack", Map.of("retentionSeconds", 60, "dedupWindowSeconds", 1));
        push("r-ack", "p", "gone", "1");
        Map<String, Object> m = pop("r-ack", "p", "g", 1).get(0);
        age(pool, "r-ack", "p", 0, 0, 120, true, true);
        maintenance();
        ack(ackByTxn("r-ack", "p", "gone", m.get("leaseId"), "g", "completed")).then().statusCode(409)
                .body("type", equalTo("/problems/unresolved"));
        ack(ackById(m, "g", "completed")).then().statusCode(409).body("type", equalTo("/problems/unresolved"));
    }

    @Test
    void anAckOfPurgedDataIsUnresolvedByTransactionIdAsByMessageIdWhileTheHashIsKept() {
        // retention 60 s, window 3600 s: the data goes, the hash stays (a re-push is a duplicate)
        options("r-ack2", Map.of("retentionSeconds", 60, "dedupWindowSeconds", 3600));
        push("r-ack2", "p", "data-gone", "1");
        push("r-ack2", "p", "data-gone-2", "2");
        List<Map<String, Object>> got = pop("r-ack2", "p", "g", 2);
        assertEquals(2, got.size());
        Map<String, Object> m = got.get(0);
        age(pool, "r-ack2", "p", 0, 1, 120, true, false);
        maintenance();
        assertEquals(0, count("messages", "r-ack2", "p"));
        assertEquals(2, count("txn_hashes", "r-ack2", "p"), "the hashes are kept for the window");
        // never a silent success: the same 409 by transactionId as by messageId, and it stays so
        for (int i = 0; i < 2; i++) {
            ack(ackByTxn("r-ack2", "p", "data-gone", m.get("leaseId"), "g", "failed")).then().statusCode(409)
                    .body("type", equalTo("/problems/unresolved"))
                    .body("errors[0].field", equalTo("transactionId"));
        }
        ack(ackById(m, "g", "failed")).then().statusCode(409).body("type", equalTo("/problems/unresolved"));
        // nothing was recorded for the purged offset; the unresolved ack still released the lease
        // (everything it delivered is gone), so the partition is free again
        assertEquals(0, count("deliveries", "r-ack2", "p"));
        ack(ackByTxn("r-ack2", "p", "data-gone-2", m.get("leaseId"), "g", "completed")).then().statusCode(409)
                .body("type", equalTo("/problems/unresolved"));
        assertEquals(0L, longOf(pool, "SELECT count(*) FROM exactly.consumer_cursors WHERE partition_id = $1 "
                + "AND lease_id IS NOT NULL", partitionId(pool, "r-ack2", "p")));
        // and in a transaction: rolled back as unresolved, nothing pushed
        api().body(Map.of("operations", List.of(
                        Map.of("type", "ack", "queue", "r-ack2", "partition", "p", "transactionId", "data-gone",
                                "consumerGroup", "g", "leaseId", m.get("leaseId"), "status", "completed"),
                        Map.of("type", "push", "items", List.of(Map.of("queue", "r-ack2-out", "transactionId",
                                "after-gone", "payload", 1))))))
                .post("/api/v1/transaction").then().statusCode(409).body("type", equalTo("/problems/unresolved"));
        api().body(Map.of("items", List.of(Map.of("queue", "r-ack2-out", "transactionId", "after-gone",
                "payload", 1)))).post("/api/v1/push").then().statusCode(200)
                .body("results[0].status", equalTo("queued"));
    }

    @Test
    void aConsumerBehindTheDataWatermarkMovesUpToIt() {
        options("r-cursor", Map.of("retentionSeconds", 60));
        pushMany("r-cursor", "p", "t", 5);
        age(pool, "r-cursor", "p", 0, 2, 120, true, false);
        maintenance();
        List<Map<String, Object>> got = pop("r-cursor", "p", "g", 10);
        assertEquals(2, got.size());
        assertEquals(3, ((Number) got.get(0).get("offset")).intValue());
        assertEquals(4, ((Number) got.get(1).get("offset")).intValue());
    }
}
