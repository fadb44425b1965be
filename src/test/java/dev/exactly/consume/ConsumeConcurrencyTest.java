package dev.exactly.consume;

import static dev.exactly.consume.ConsumeFixtures.age;
import static dev.exactly.consume.ConsumeFixtures.longOf;
import static dev.exactly.consume.ConsumeFixtures.options;
import static dev.exactly.consume.ConsumeFixtures.partitionId;
import static dev.exactly.consume.ConsumeFixtures.pushMany;
import static dev.exactly.testing.Api.api;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Push, pop, ack (plain, batch and inside transactions that also push), dead-lettering and the
 * retention purge, all at once on one partition: nothing deadlocks (no 5xx, every call
 * answers), nothing is lost (every distinct pushed id is stored once and consumed), and every
 * delivery is in offset order.
 */
@QuarkusTest
class ConsumeConcurrencyTest {

    private static final String Q = "cc";
    private static final int IDS = 400;
    private static final int PUSHERS = 4;
    private static final int CONSUMERS = 4;
    private static final int OLD = 300;

    @Inject
    Pool pool;

    @Test
    void pushPopAckAndPurgeOnOnePartitionNeitherDeadlockNorLose() throws Exception {
        // the dead-letter and output partitions get lower ids than the source partition, so
        // failing and transactional acks lock a partition ordered before the one pushes lock
        ConsumeFixtures.push(Q + ".dlq", "p", "first", "0");
        ConsumeFixtures.push("cc-out", "p", "first", "0");
        // a window well above the run time (a loaded machine stretches it): every re-push is a duplicate
        options(Q, Map.of("retentionSeconds", 600, "dedupWindowSeconds", 600, "retryLimit", 1, "retryDelay", 0));
        pushMany(Q, "p", "old-", OLD);
        age(pool, Q, "p", 0, OLD - 1, 3600, true, true);

        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        Map<String, Set<String>> idsByTxn = new ConcurrentHashMap<>();
        Set<String> completedNew = ConcurrentHashMap.newKeySet();
        Set<String> deadNew = ConcurrentHashMap.newKeySet();
        Set<String> producedOut = ConcurrentHashMap.newKeySet();
        AtomicBoolean pushersDone = new AtomicBoolean();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(240);

        ExecutorService exec = Executors.newFixedThreadPool(PUSHERS + CONSUMERS + 1);
        try {
            List<Future<?>> pushers = new ArrayList<>();
            for (int t = 0; t < PUSHERS; t++) {
                int seed = t;
                pushers.add(exec.submit(() -> {
                    List<Integer> order = new ArrayList<>();
                    for (int i = 0; i < IDS; i++) {
                        order.add(i);
                    }
                    Collections.shuffle(order, new Random(seed));
                    for (int from = 0; from < IDS; from += 10) {
                        List<Map<String, Object>> items = new ArrayList<>();
                        for (int k = from; k < from + 10; k++) {
                            items.add(Map.of("queue", Q, "partition", "p", "transactionId", "new-" + order.get(k),
                                    "payload", Map.of("n", order.get(k))));
                        }
                        Response r = api().body(Map.of("items", items)).post("/api/v1/push");
                        if (r.statusCode() != 200) {
                            failures.add("push " + r.statusCode() + " " + r.asString());
                            continue;
                        }
                        for (Map<String, Object> res : r.jsonPath().<Map<String, Object>>getList("results")) {
                            idsByTxn.computeIfAbsent((String) res.get("transactionId"), x -> ConcurrentHashMap.newKeySet())
                                    .add((String) res.get("messageId"));
                        }
                    }
                }));
            }
            Future<?> purger = exec.submit(() -> {
                while (!pushersDone.get() && System.nanoTime() < deadline) {
                    Response r = api().post("/api/v1/admin/maintenance");
                    if (r.statusCode() != 200) {
                        failures.add("maintenance " + r.statusCode() + " " + r.asString());
                    }
                }
            });
            List<Future<?>> consumers = new ArrayList<>();
            for (int c = 0; c < CONSUMERS; c++) {
                int consumer = c;
                consumers.add(exec.submit(() -> consume(consumer, pushersDone, deadline, failures, completedNew,
                        deadNew, producedOut)));
            }
            for (Future<?> f : pushers) {
                f.get();
            }
            pushersDone.set(true);
            purger.get();
            for (Future<?> f : consumers) {
                f.get();
            }
        } finally {
            exec.shutdownNow();
        }

        assertTrue(failures.isEmpty(), "every call answered 2xx: " + failures);
        // exactness: one stored message per distinct id, every answer for an id names it
        assertEquals(IDS, idsByTxn.size());
        for (Map.Entry<String, Set<String>> e : idsByTxn.entrySet()) {
            assertEquals(1, e.getValue().size(), "one messageId for " + e.getKey() + ": " + e.getValue());
        }
        long pid = partitionId(pool, Q, "p");
        assertEquals(IDS, longOf(pool, "SELECT count(*) FROM exactly.messages WHERE partition_id = $1 "
                + "AND transaction_id LIKE 'new-%'", pid));
        assertEquals(IDS, longOf(pool, "SELECT count(DISTINCT transaction_id) FROM exactly.messages "
                + "WHERE partition_id = $1 AND transaction_id LIKE 'new-%'", pid));
        assertEquals(OLD + IDS - 1, longOf(pool, "SELECT last_offset FROM exactly.partitions WHERE id = $1", pid),
                "no offset allocated for a duplicate");
        // nothing lost: every new message was settled (completed or dead-lettered) by the group
        Set<String> settled = ConcurrentHashMap.newKeySet();
        settled.addAll(completedNew);
        settled.addAll(deadNew);
        for (Set<String> ids : idsByTxn.values()) {
            assertTrue(settled.containsAll(ids), "consumed " + ids);
        }
        assertEquals(OLD + IDS, longOf(pool, "SELECT next_offset FROM exactly.consumer_cursors "
                + "WHERE partition_id = $1 AND consumer_group = 'g'", pid), "the cursor is past everything");
        // the old data went to retention while all this ran
        assertEquals(OLD, longOf(pool, "SELECT data_start FROM exactly.partitions WHERE id = $1", pid));
        // the transactional acks produced exactly one output each
        assertEquals(producedOut.size(), longOf(pool, "SELECT count(*) FROM exactly.messages m "
                + "JOIN exactly.partitions p ON p.id = m.partition_id JOIN exactly.queues q ON q.id = p.queue_id "
                + "WHERE q.name = 'cc-out' AND m.transaction_id <> 'first'"));
        System.out.printf("concurrency: %d distinct ids pushed %d times each, %d new completed, %d new dead-lettered, "
                + "%d transactional outputs, old data purged up to offset %d%n", IDS, PUSHERS, completedNew.size(),
                deadNew.size(), producedOut.size(), OLD);
        assertTrue(!deadNew.isEmpty() && !producedOut.isEmpty(), "the run dead-lettered and produced in transactions");
        // dead letters: one copy each
        assertEquals(deadNew.size() + 0L, longOf(pool, "SELECT count(*) FROM exactly.messages m "
                + "JOIN exactly.partitions p ON p.id = m.partition_id JOIN exactly.queues q ON q.id = p.queue_id "
                + "WHERE q.name = 'cc.dlq' AND m.headers -> 'x-exactly-dead-letter' ->> 'transactionId' LIKE 'new-%'"));
    }

    private static List<Map<String, Object>> ackBatchWithoutOutput(List<Map<String, Object>> acks,
                                                                  ConcurrentLinkedQueue<String> failures) {
        Response b = api().body(Map.of("items", acks)).post("/api/v1/ack/batch");
        if (b.statusCode() != 200) {
            failures.add("ack " + b.statusCode() + " " + b.asString());
            return null;
        }
        return b.jsonPath().getList("results");
    }

    /**
     * One consumer: pops batches, checks offset order, and acks them. Consumer 0 acks inside
     * transactions that also push one output message each; the others use batch acks; every
     * 13th message fails once (and with retryLimit 1, every 13th of those is dead-lettered).
     */
    private void consume(int consumer, AtomicBoolean pushersDone, long deadline, ConcurrentLinkedQueue<String> failures,
                         Set<String> completedNew, Set<String> deadNew, Set<String> producedOut) {
        int emptyAfterPushes = 0;
        while (System.nanoTime() < deadline && emptyAfterPushes < 5) {
            Response r = api().body(Map.of("queue", Q, "consumerGroup", "g", "batch", 25, "waitMillis", 200))
                    .post("/api/v1/pop");
            if (r.statusCode() != 200) {
                failures.add("pop " + r.statusCode() + " " + r.asString());
                continue;
            }
            List<Map<String, Object>> got = r.jsonPath().getList("messages");
            if (got.isEmpty()) {
                if (pushersDone.get()) {
                    emptyAfterPushes++;
                }
                continue;
            }
            emptyAfterPushes = 0;
            long previous = -1;
            List<Map<String, Object>> acks = new ArrayList<>();
            for (Map<String, Object> m : got) {
                long offset = ((Number) m.get("offset")).longValue();
                if (offset <= previous) {
                    failures.add("out of order: " + offset + " after " + previous);
                }
                previous = offset;
                int attempts = ((Number) m.get("attempts")).intValue();
                boolean fail = offset % 13 == 0 && (attempts == 1 || offset % 169 == 0);
                Map<String, Object> a = new LinkedHashMap<>();
                a.put("messageId", m.get("messageId"));
                a.put("leaseId", m.get("leaseId"));
                a.put("consumerGroup", "g");
                a.put("status", fail ? "failed" : "completed");
                acks.add(a);
            }
            List<Map<String, Object>> results;
            if (consumer == 0) {
                List<Object> ops = new ArrayList<>();
                List<Map<String, Object>> out = new ArrayList<>();
                for (int i = 0; i < acks.size(); i++) {
                    Map<String, Object> op = new LinkedHashMap<>(acks.get(i));
                    op.put("type", "ack");
                    ops.add(op);
                    if ("completed".equals(acks.get(i).get("status"))) {
                        out.add(Map.of("queue", "cc-out", "partition", "p",
                                "transactionId", "out-" + got.get(i).get("messageId"), "payload", 1));
                    }
                }
                if (!out.isEmpty()) {
                    ops.add(Map.of("type", "push", "items", out));
                }
                Response t = api().body(Map.of("operations", ops)).post("/api/v1/transaction");
                if (t.statusCode() == 409 && "/problems/unresolved".equals(t.jsonPath().getString("type"))
                        && ((String) got.get(t.jsonPath().getInt("operation")).get("transactionId")).startsWith("old-")) {
                    // an old message purged while leased: the transaction rolled back whole; its
                    // lease expires or is released by another consumer's ack; acking the rest again
                    results = ackBatchWithoutOutput(acks, failures);
                    if (results == null) {
                        continue;
                    }
                } else if (t.statusCode() != 200) {
                    failures.add("transaction " + t.statusCode() + " " + t.asString());
                    continue;
                } else {
                    JsonPath j = t.jsonPath();
                    results = new ArrayList<>();
                    for (int i = 0; i < acks.size(); i++) {
                        results.add(j.getMap("results[" + i + "].ack"));
                    }
                    for (Map<String, Object> o : out) {
                        producedOut.add((String) o.get("transactionId"));
                    }
                }
            } else {
                results = ackBatchWithoutOutput(acks, failures);
                if (results == null) {
                    continue;
                }
            }
            for (int i = 0; i < results.size(); i++) {
                Map<String, Object> res = results.get(i);
                String txn = (String) got.get(i).get("transactionId");
                if (!"acked".equals(res.get("result"))) {
                    // retention may purge an old message while it is leased: its ack is then
                    // unresolved (and a transaction carrying it rolls back); never a new one's
                    if (!txn.startsWith("old-") || !"unresolved".equals(res.get("result"))) {
                        failures.add("ack result " + res + " for " + txn);
                    }
                    continue;
                }
                if (!txn.startsWith("new-")) {
                    continue;
                }
                if ("completed".equals(res.get("outcome"))) {
                    completedNew.add((String) got.get(i).get("messageId"));
                } else if ("dead-lettered".equals(res.get("outcome"))) {
                    deadNew.add((String) got.get(i).get("messageId"));
                }
            }
        }
    }
}
