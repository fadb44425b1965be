package dev.exactly.consume;

import static dev.exactly.consume.ConsumeFixtures.ack;
import static dev.exactly.consume.ConsumeFixtures.ackBatch;
import static dev.exactly.consume.ConsumeFixtures.ackById;
import static dev.exactly.consume.ConsumeFixtures.ackByTxn;
import static dev.exactly.consume.ConsumeFixtures.completeAll;
import static dev.exactly.consume.ConsumeFixtures.longOf;
import static dev.exactly.consume.ConsumeFixtures.options;
import static dev.exactly.consume.ConsumeFixtures.partitionId;
import static dev.exactly.consume.ConsumeFixtures.pop;
import static dev.exactly.consume.ConsumeFixtures.push;
import static dev.exactly.consume.ConsumeFixtures.pushMany;
import static dev.exactly.consume.ConsumeFixtures.sql;
import static dev.exactly.testing.Api.api;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Pop, leases, acks, retries and the dead-letter queue, against the embedded PostgreSQL. */
@QuarkusTest
class ConsumeTest {

    @Inject
    Pool pool;

    @Test
    void deliversEachPartitionInOffsetOrderAndAdvancesOnAck() {
        List<String> ids = pushMany("c-order", "p", "t", 25);
        List<Long> offsets = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            List<Map<String, Object>> batch = pop("c-order", "p", "g", 10);
            for (Map<String, Object> m : batch) {
                offsets.add(((Number) m.get("offset")).longValue());
                seen.add((String) m.get("messageId"));
                assertEquals(batch.get(0).get("leaseId"), m.get("leaseId"), "one lease per pop");
            }
            completeAll(batch, "g");
        }
        assertEquals(25, offsets.size());
        for (int i = 0; i < offsets.size(); i++) {
            assertEquals(i, offsets.get(i), "offset order");
        }
        assertEquals(ids, seen);
        assertTrue(pop("c-order", "p", "g", 10).isEmpty(), "everything settled");
        assertEquals(25, longOf(pool, "SELECT next_offset FROM exactly.consumer_cursors WHERE partition_id = $1 "
                + "AND consumer_group = 'g'", partitionId(pool, "c-order", "p")));
    }

    @Test
    void popReturnsPayloadAndMetadata() {
        Map<String, Object> pushed = push("c-meta", "p", "order-1", "{\"total\": 12.50, \"z\":1, \"a\":2}");
        List<Map<String, Object>> got = pop("c-meta", null, "g", 5);
        assertEquals(1, got.size());
        Map<String, Object> m = got.get(0);
        assertEquals(pushed.get("messageId"), m.get("messageId"));
        assertEquals("order-1", m.get("transactionId"));
        assertEquals("p", m.get("partition"));
        assertEquals("c-meta", m.get("queue"));
        assertEquals(0, ((Number) m.get("offset")).intValue());
        assertEquals(1, ((Number) m.get("attempts")).intValue(), "the first delivery");
        assertNotNull(m.get("createdAt"));
        assertNotNull(m.get("leaseExpiresAt"));
        // the payload comes back byte for byte
        String raw = api().body(Map.of("queue", "c-meta", "consumerGroup", "g2")).post("/api/v1/pop")
                .then().statusCode(200).extract().asString();
        assertTrue(raw.contains("\"payload\":{\"total\": 12.50, \"z\":1, \"a\":2}"), raw);
    }

    @Test
    void popOfAnUnknownQueueOrAnEmptyOneIsEmpty() {
        assertTrue(pop("c-nothing-here", null, "g", 1).isEmpty());
        push("c-drained", "p", null, "1");
        completeAll(pop("c-drained", null, "g", 1), "g");
        assertTrue(pop("c-drained", null, "g", 1).isEmpty());
    }

    @Test
    void twoConsumersOfOneGroupNeverHoldTheSamePartition() throws Exception {
        int partitions = 4;
        for (int p = 0; p < partitions; p++) {
            pushMany("c-excl", "p" + p, "t", 5);
        }
        int clients = 16;
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            for (int wave = 0; wave < 3; wave++) {
                List<Future<List<Map<String, Object>>>> futures = new ArrayList<>();
                for (int c = 0; c < clients; c++) {
                    futures.add(pool.submit(() -> pop("c-excl", null, "g", 100)));
                }
                Set<String> leasedPartitions = new HashSet<>();
                Set<String> leases = new HashSet<>();
                Set<String> messages = new HashSet<>();
                int nonEmpty = 0;
                List<Map<String, Object>> all = new ArrayList<>();
                for (Future<List<Map<String, Object>>> f : futures) {
                    List<Map<String, Object>> got = f.get();
                    if (got.isEmpty()) {
                        continue;
                    }
                    nonEmpty++;
                    String partition = (String) got.get(0).get("partition");
                    assertTrue(leasedPartitions.add(partition), "partition " + partition + " leased twice");
                    for (Map<String, Object> m : got) {
                        assertEquals(partition, m.get("partition"));
                        assertTrue(messages.add((String) m.get("messageId")), "message delivered twice");
                        leases.add((String) m.get("leaseId"));
                    }
                    assertEquals(5, got.size(), "a lease holds the partition's whole backlog");
                    all.addAll(got);
                }
                if (wave == 0) {
                    assertEquals(partitions, nonEmpty, "each partition leased exactly once");
                    assertEquals(partitions, leases.size());
                    // the leases are live: nobody else gets anything
                    assertTrue(pop("c-excl", null, "g", 100).isEmpty());
                    for (int p = 0; p < partitions; p++) {
                        assertTrue(pop("c-excl", "p" + p, "g", 100).isEmpty());
                    }
                    // another group is independent
                    assertEquals(5, pop("c-excl", "p0", "other", 100).size());
                    completeAll(all, "g");
                } else {
                    assertEquals(0, nonEmpty, "all settled");
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void anExpiredLeaseRedelivers() {
        pushMany("c-expire", "p", "t", 3);
        List<Map<String, Object>> first = pop("c-expire", "p", "g", 10);
        assertEquals(3, first.size());
        Object lease1 = first.get(0).get("leaseId");
        ack(ackById(first.get(0), "g", "completed")).then().statusCode(200).body("result", equalTo("acked"));
        // still leased: nothing for anybody
        assertTrue(pop("c-expire", "p", "g", 10).isEmpty());

        sql(pool, "UPDATE exactly.consumer_cursors SET lease_expires_at = now() - interval '1 second' "
                + "WHERE partition_id = $1 AND consumer_group = 'g'", partitionId(pool, "c-expire", "p"));

        List<Map<String, Object>> again = pop("c-expire", "p", "g", 10);
        assertEquals(2, again.size(), "the two unacked messages come again, the acked one does not");
        assertEquals(first.get(1).get("messageId"), again.get(0).get("messageId"));
        assertEquals(first.get(2).get("messageId"), again.get(1).get("messageId"));
        assertNotEquals(lease1, again.get(0).get("leaseId"));

        // the old lease no longer holds them
        ack(ackById(first.get(1), "g", "completed")).then().statusCode(409)
                .contentType(containsString("application/problem+json"))
                .body("type", equalTo("/problems/lease-mismatch"));
        completeAll(again, "g");
        assertTrue(pop("c-expire", "p", "g", 10).isEmpty());
    }

    /**
     * An ack with a lease that expired is still applied while no other pop took the partition over
     * (its messages were not delivered again, so the work it reports is not duplicated), and is
     * answered as any ack; once a pop took the partition over the same lease is lease-mismatch
     * (docs/consuming.md, Ack). A repeat of an ack made before the expiry is a replay.
     */
    @Test
    void anExpiredLeaseStillAcksUntilThePartitionIsTakenOver() {
        pushMany("c-late", "p", "t", 3);
        List<Map<String, Object>> first = pop("c-late", "p", "g", 10);
        ack(ackById(first.get(0), "g", "completed")).then().statusCode(200).body("result", equalTo("acked"));
        sql(pool, "UPDATE exactly.consumer_cursors SET lease_expires_at = now() - interval '1 second' "
                + "WHERE partition_id = $1 AND consumer_group = 'g'", partitionId(pool, "c-late", "p"));

        ack(ackById(first.get(0), "g", "completed")).then().statusCode(200).body("replay", equalTo(true));
        ack(ackById(first.get(1), "g", "completed")).then().statusCode(200).body("result", equalTo("acked"))
                .body("outcome", equalTo("completed"));

        List<Map<String, Object>> again = pop("c-late", "p", "g", 10);
        assertEquals(1, again.size(), "only the message the expired lease left unacked comes again");
        assertEquals(first.get(2).get("messageId"), again.get(0).get("messageId"));
        ack(ackById(first.get(2), "g", "completed")).then().statusCode(409)
                .body("type", equalTo("/problems/lease-mismatch"));
        completeAll(again, "g");
    }

    @Test
    void failedMessagesAreRetriedThenDeadLettered() {
        options("c-retry", Map.of("retryLimit", 2, "retryDelay", 0));
        push("c-retry", "p", "poison", "{\"bad\":true}");
        push("c-retry", "p", "fine", "{\"bad\":false}");
        String poisonId = null;
        for (int delivery = 1; delivery <= 3; delivery++) {
            List<Map<String, Object>> got = pop("c-retry", "p", "g", 1);
            assertEquals(1, got.size());
            Map<String, Object> m = got.get(0);
            assertEquals("poison", m.get("transactionId"), "delivery " + delivery + " is the failed message again");
            assertEquals(delivery, ((Number) m.get("attempts")).intValue(), "attempts numbers the delivery");
            poisonId = (String) m.get("messageId");
            Map<String, Object> a = ackById(m, "g", delivery == 2 ? "retry" : "failed");
            a.put("error", "boom " + delivery);
            var r = ack(a).then().statusCode(200).body("result", equalTo("acked"))
                    .body("attempts", equalTo(delivery)).extract().jsonPath();
            if (delivery < 3) {
                assertEquals("retry", r.getString("outcome"));
            } else {
                assertEquals("dead-lettered", r.getString("outcome"), "1 + retryLimit deliveries, then the DLQ");
                assertNotNull(r.getString("deadLetterMessageId"));
            }
        }
        List<Map<String, Object>> next = pop("c-retry", "p", "g", 5);
        assertEquals(1, next.size());
        assertEquals("fine", next.get(0).get("transactionId"), "the partition moves on in order");

        List<Map<String, Object>> dead = pop("c-retry.dlq", "p", "ops", 5);
        assertEquals(1, dead.size());
        Map<String, Object> d = dead.get(0);
        assertEquals(d.get("messageId"), d.get("transactionId"), "a dead letter's transactionId is its own id");
        @SuppressWarnings("unchecked")
        Map<String, Object> payload = (Map<String, Object>) d.get("payload");
        assertEquals(Boolean.TRUE, payload.get("bad"));
        @SuppressWarnings("unchecked")
        Map<String, Object> origin = (Map<String, Object>) ((Map<String, Object>) d.get("headers")).get("x-exactly-dead-letter");
        assertEquals("c-retry", origin.get("queue"));
        assertEquals("p", origin.get("partition"));
        assertEquals(poisonId, origin.get("messageId"));
        assertEquals("poison", origin.get("transactionId"));
        assertEquals("g", origin.get("consumerGroup"));
        assertEquals("boom 3", origin.get("error"));
        assertEquals(3, ((Number) origin.get("attempts")).intValue());
    }

    @Test
    void ackWithStatusDlqDeadLettersAtOnce() {
        push("c-dlq-now", "p", "x", "1");
        Map<String, Object> m = pop("c-dlq-now", "p", "g", 1).get(0);
        ack(ackById(m, "g", "dlq")).then().statusCode(200).body("outcome", equalTo("dead-lettered"))
                .body("attempts", equalTo(1));
        assertEquals(1, pop("c-dlq-now.dlq", "p", "g", 5).size());
        assertTrue(pop("c-dlq-now", "p", "g", 5).isEmpty());
    }

    @Test
    void retryDelayHoldsThePartitionBack() {
        options("c-delay", Map.of("retryDelay", 600_000));
        pushMany("c-delay", "p", "t", 2);
        Map<String, Object> m = pop("c-delay", "p", "g", 1).get(0);
        ack(ackById(m, "g", "failed")).then().statusCode(200).body("outcome", equalTo("retry"));
        assertTrue(pop("c-delay", "p", "g", 5).isEmpty(), "not before retryDelay");
        sql(pool, "UPDATE exactly.consumer_cursors SET available_at = now() WHERE partition_id = $1",
                partitionId(pool, "c-delay", "p"));
        List<Map<String, Object>> again = pop("c-delay", "p", "g", 5);
        assertEquals(2, again.size());
        assertEquals(m.get("messageId"), again.get(0).get("messageId"), "the failed message first, in order");
        assertEquals(2, ((Number) again.get(0).get("attempts")).intValue(), "its second delivery");
    }

    @Test
    void ackByTransactionIdResolvesThroughTheStoredHashes() {
        pushMany("c-bytxn", "p", "order-", 3);
        List<Map<String, Object>> got = pop("c-bytxn", "p", "g", 3);
        Object lease = got.get(0).get("leaseId");
        ack(ackByTxn("c-bytxn", "p", "order-1", lease, "g", "completed")).then().statusCode(200)
                .body("result", equalTo("acked")).body("offset", equalTo(1))
                .body("messageId", equalTo(got.get(1).get("messageId")));
        // unknown transactionId: an explicit error, never a silent success
        ack(ackByTxn("c-bytxn", "p", "never-pushed", lease, "g", "completed")).then().statusCode(409)
                .contentType(containsString("application/problem+json"))
                .body("type", equalTo("/problems/unresolved"))
                .body("errors.field", hasItem("transactionId"));
        // another partition's hash space
        ack(ackByTxn("c-bytxn", "other", "order-0", lease, "g", "completed")).then().statusCode(409)
                .body("type", equalTo("/problems/unresolved"));

        List<Map<String, Object>> results = ackBatch(List.of(
                ackByTxn("c-bytxn", "p", "order-0", lease, "g", "completed"),
                ackByTxn("c-bytxn", "p", "nope", lease, "g", "completed"),
                ackById(got.get(2), "g", "completed"),
                ackByTxn("c-bytxn", "p", "order-1", lease, "g", "completed")));
        assertEquals("acked", results.get(0).get("result"));
        assertEquals("unresolved", results.get(1).get("result"));
        assertEquals(1, ((Number) results.get(1).get("index")).intValue());
        assertEquals("acked", results.get(2).get("result"));
        assertEquals("acked", results.get(3).get("result"));
        assertEquals(Boolean.TRUE, results.get(3).get("replay"), "order-1 was acked before under this lease");
        assertTrue(pop("c-bytxn", "p", "g", 3).isEmpty(), "the lease was released and everything settled");
        // repeating an ack of the released lease is answered, not refused
        ack(ackById(got.get(0), "g", "completed")).then().statusCode(200).body("replay", equalTo(true));
    }

    @Test
    void aRepeatedAckByTransactionIdNeverMovesOnToAnotherMessageSharingIt() {
        options("c-twin", Map.of("dedupWindowSeconds", 0));
        push("c-twin", "p", "t1", "\"A\"");
        push("c-twin", "p", "t1", "\"B\"");
        List<Map<String, Object>> got = pop("c-twin", "p", "g", 10);
        assertEquals(2, got.size());
        Object lease = got.get(0).get("leaseId");
        ack(ackByTxn("c-twin", "p", "t1", lease, "g", "completed")).then().statusCode(200)
                .body("offset", equalTo(0)).body("result", equalTo("acked"));
        // the same request again (a client retry): the same message, as a replay; B stays unacked
        for (int i = 0; i < 2; i++) {
            ack(ackByTxn("c-twin", "p", "t1", lease, "g", "completed")).then().statusCode(200)
                    .body("offset", equalTo(0)).body("replay", equalTo(true));
        }
        // B is acked by its messageId
        ack(ackById(got.get(1), "g", "completed")).then().statusCode(200)
                .body("offset", equalTo(1)).body("result", equalTo("acked"));
        assertTrue(pop("c-twin", "p", "g", 10).isEmpty());
    }

    @Test
    void aTwinLeftUnackedComesBackAndIsThenAckedByTransactionId() {
        options("c-twin2", Map.of("dedupWindowSeconds", 0, "leaseTime", 1));
        push("c-twin2", "p", "t1", "\"A\"");
        push("c-twin2", "p", "t1", "\"B\"");
        List<Map<String, Object>> got = pop("c-twin2", "p", "g", 10);
        assertEquals(2, got.size());
        ack(ackByTxn("c-twin2", "p", "t1", got.get(0).get("leaseId"), "g", "completed")).then().statusCode(200)
                .body("offset", equalTo(0));
        // B was never acked: it is delivered again once the lease passes, and its ack resolves to it
        List<Map<String, Object>> again = List.of();
        for (int i = 0; i < 50 && again.isEmpty(); i++) {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            again = pop("c-twin2", "p", "g", 10);
        }
        assertEquals(1, again.size());
        assertEquals(got.get(1).get("messageId"), again.get(0).get("messageId"));
        ack(ackByTxn("c-twin2", "p", "t1", again.get(0).get("leaseId"), "g", "completed")).then().statusCode(200)
                .body("offset", equalTo(1)).body("result", equalTo("acked"));
    }

    @Test
    void anAckNeedsTheLeaseThatDeliveredTheMessage() {
        push("c-lease", "p", "a", "1");
        Map<String, Object> m = pop("c-lease", "p", "g", 1).get(0);
        Map<String, Object> wrongLease = ackById(m, "g", "completed");
        wrongLease.put("leaseId", "00000000-0000-0000-0000-000000000001");
        ack(wrongLease).then().statusCode(409).body("type", equalTo("/problems/lease-mismatch"))
                .body("detail", containsString("consumer group \"g\""));
        Map<String, Object> wrongGroup = ackById(m, "other", "completed");
        // the detail names the group the ack was taken for (an ack without consumerGroup is the
        // default group's, which a new-user check could not tell from the message)
        ack(wrongGroup).then().statusCode(409).body("type", equalTo("/problems/lease-mismatch"))
                .body("detail", containsString("consumer group \"other\" holds no lease"));
        Map<String, Object> wrongQueue = ackById(m, "g", "completed");
        wrongQueue.put("queue", "c-lease-elsewhere");
        ack(wrongQueue).then().statusCode(409).body("type", equalTo("/problems/unresolved"));
        ack(ackById(m, "g", "completed")).then().statusCode(200).body("outcome", equalTo("completed"));
    }

    @Test
    void longPollWaitsForAPushWithoutHoldingAThread() throws Exception {
        CompletableFuture<List<Map<String, Object>>> waiting = CompletableFuture.supplyAsync(() ->
                pop(Map.of("queue", "c-longpoll", "consumerGroup", "g", "waitMillis", 15000)));
        Thread.sleep(500);
        assertTrue(!waiting.isDone(), "still waiting: the queue was empty");
        String id = (String) push("c-longpoll", "p", "late", "{\"late\":true}").get("messageId");
        List<Map<String, Object>> got = waiting.get();
        assertEquals(1, got.size());
        assertEquals(id, got.get(0).get("messageId"));
        // waiting with nothing to get ends empty
        assertTrue(pop(Map.of("queue", "c-longpoll", "consumerGroup", "g2", "partition", "none", "waitMillis", 100))
                .isEmpty());
    }

    @Test
    void badPopsAndAcksAre400AndChangeNothing() {
        api().body(Map.of("queue", "c-bad", "batch", 0)).post("/api/v1/pop").then().statusCode(400)
                .contentType(containsString("application/problem+json")).body("errors.field", hasItem("batch"));
        api().body(Map.of("queue", "c-bad", "batch", 1001)).post("/api/v1/pop").then().statusCode(400)
                .body("errors.field", hasItem("batch"));
        api().body(Map.of("queue", "c-bad", "waitMillis", 20001)).post("/api/v1/pop").then().statusCode(400)
                .body("errors.field", hasItem("waitMillis"));
        api().body(Map.of("batch", 1)).post("/api/v1/pop").then().statusCode(400).body("errors.field", hasItem("queue"));
        api().body(Map.of("queue", "bad name")).post("/api/v1/pop").then().statusCode(400)
                .body("errors.field", hasItem("queue"));
        api().body(Map.of("queue", "c-bad", "bogus", 1)).post("/api/v1/pop").then().statusCode(400)
                .body("errors.field", hasItem("bogus"));

        push("c-bad", "p", "k", "1");
        Map<String, Object> m = pop("c-bad", "p", "g", 1).get(0);
        Map<String, Object> noLease = ackById(m, "g", "completed");
        noLease.remove("leaseId");
        ack(noLease).then().statusCode(400).body("errors.field", hasItem("leaseId"));
        Map<String, Object> both = ackById(m, "g", "completed");
        both.put("transactionId", "k");
        both.put("queue", "c-bad");
        ack(both).then().statusCode(400);
        Map<String, Object> badStatus = ackById(m, "g", "done");
        ack(badStatus).then().statusCode(400).body("errors.field", hasItem("status"));
        Map<String, Object> txnNoQueue = ackByTxn(null, "p", "k", m.get("leaseId"), "g", "completed");
        txnNoQueue.remove("queue");
        ack(txnNoQueue).then().statusCode(400).body("errors.field", hasItem("queue"));

        // a batch with one bad item is refused whole: the good item is not applied
        api().body(Map.of("items", List.of(ackById(m, "g", "completed"), badStatus))).post("/api/v1/ack/batch")
                .then().statusCode(400).body("errors.index", hasItem(1));
        assertEquals(0, longOf(pool, "SELECT count(*) FROM exactly.deliveries WHERE partition_id = $1",
                partitionId(pool, "c-bad", "p")));
        ack(ackById(m, "g", "completed")).then().statusCode(200).body("replay", equalTo(null));
    }

    /** An ack by transactionId that names no partition. */
    private static Map<String, Object> ackByTxnOnly(String queue, String txn, Object leaseId, String group) {
        Map<String, Object> a = new java.util.LinkedHashMap<>(ackByTxn(queue, "x", txn, leaseId, group, "completed"));
        a.remove("partition");
        return a;
    }

    @Test
    void anAckByTransactionIdWithoutPartitionIsResolvedInTheLeasesPartition() {
        String q = "c-txn-lease-" + java.util.UUID.randomUUID();
        push(q, "eu", "k-1", "1");
        push(q, "Default", "k-1", "2"); // the same key in Default: another message
        Map<String, Object> m = pop(q, "eu", "g", 1).get(0);
        ack(ackByTxnOnly(q, "k-1", m.get("leaseId"), "g")).then().statusCode(200)
                .body("result", equalTo("acked")).body("partition", equalTo("eu"))
                .body("messageId", equalTo(m.get("messageId")));
        // repeated after the lease was released (everything it delivered is acked): a replay there
        ack(ackByTxnOnly(q, "k-1", m.get("leaseId"), "g")).then().statusCode(200)
                .body("replay", equalTo(true)).body("partition", equalTo("eu"));
        // a lease that is no cursor's: Default, as before (there it is not this lease's: unresolved
        // by the lease, which holds nothing of Default)
        ack(ackByTxnOnly(q, "k-1", java.util.UUID.randomUUID().toString(), "g")).then().statusCode(409)
                .body("type", containsString("lease-mismatch"));
        // the Default message is still undelivered to g
        assertEquals("2", String.valueOf(pop(q, "Default", "g", 1).get(0).get("payload")));
    }
}
