package dev.exactly.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.TestDatabase;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Exactness under concurrency: two independent engine instances (separate pools, as two function
 * instances would be), 16 clients, overlapping transactionIds over a few partitions, single- and
 * multi-partition bundles. Afterwards: stored rows = distinct ids per partition, every answer for
 * one id carries the same messageId (the stored one), no error, no deadlock.
 */
class PushEngineConcurrencyTest {

    private static final int CLIENTS = 16;
    private static final int REQUESTS_PER_CLIENT = 60;
    private static final int IDS = 400;
    private static final String[] PARTITIONS = {"p0", "p1", "p2", "p3"};

    static Vertx vertx;
    static Pool poolA;
    static Pool poolB;
    static Pool audit;

    @BeforeAll
    static void start() {
        vertx = Vertx.vertx();
        String db = TestDatabase.createMigratedDatabase();
        poolA = TestDatabase.pool(vertx, db, 8);
        poolB = TestDatabase.pool(vertx, db, 8);
        audit = TestDatabase.pool(vertx, db, 2);
        // initialise Mutiny's context propagation once, before many threads race to do it
        audit.query("SELECT 1").executeAndAwait();
    }

    @AfterAll
    static void stop() {
        poolA.closeAndAwait();
        poolB.closeAndAwait();
        audit.closeAndAwait();
        vertx.closeAndAwait();
    }

    /** Pushes one request and records each verdict as an answer, or the failure. */
    private static void pushRecording(PushEngine engine, List<PushCommand> items, ConcurrentLinkedQueue<Answer> answers,
                                      ConcurrentLinkedQueue<Throwable> failures) {
        try {
            List<PushVerdict> verdicts = engine.push(items).await().atMost(Duration.ofSeconds(60));
            assertEquals(items.size(), verdicts.size());
            for (PushVerdict v : verdicts) {
                answers.add(new Answer(v.partition(), v.transactionId(), v.messageId(), v.status()));
            }
        } catch (Throwable t) {
            failures.add(t);
        }
    }

    private record Answer(String partition, String txn, UUID messageId, PushStatus status) {
    }

    @Test
    void twoInstancesSixteenClientsStoreEachIdExactlyOnce() throws Exception {
        overlappingPushes("conc", PARTITIONS);
    }

    /**
     * Two engine instances, 16 clients, overlapping transactionIds over the given partitions of a
     * queue, single- and multi-partition bundles; then {@link #assertExactlyOnce}.
     */
    static void overlappingPushes(String queue, String[] partitions) throws Exception {
        PushEngine[] engines = {
            new PushEngine(new PushRepository(poolA), DedupCache.DISABLED),
            new PushEngine(new PushRepository(poolB), DedupCache.DISABLED)
        };
        ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        CountDownLatch go = new CountDownLatch(1);
        for (int c = 0; c < CLIENTS; c++) {
            PushEngine engine = engines[c % 2];
            long seed = 1000 + c;
            clients.submit(() -> {
                Random rnd = new Random(seed);
                go.await();
                for (int r = 0; r < REQUESTS_PER_CLIENT; r++) {
                    List<PushCommand> items = new ArrayList<>();
                    boolean bundle = rnd.nextBoolean();
                    int n = 1 + rnd.nextInt(12);
                    for (int i = 0; i < n; i++) {
                        String partition = bundle ? partitions[rnd.nextInt(partitions.length)]
                                : partitions[(int) (seed % partitions.length)];
                        String txn = "tx-" + rnd.nextInt(IDS);
                        items.add(PushCommand.json(queue, partition, txn, ("{\"i\":" + i + "}").getBytes(StandardCharsets.UTF_8), null));
                    }
                    pushRecording(engine, items, answers, failures);
                }
                return null;
            });
        }
        go.countDown();
        clients.shutdown();
        assertTrue(clients.awaitTermination(5, TimeUnit.MINUTES), "clients did not finish (deadlock?)");
        assertTrue(failures.isEmpty(), () -> failures.size() + " failures, the first: " + failures.stream().limit(3).toList());

        assertExactlyOnce(queue, answers);
    }

    /**
     * Racing first pushes mixed with retries, the traffic a deduplicator exists for: in each round
     * all clients push the round's new key at once into one partition (one wins, the others must
     * come back duplicates of it, whether they waited for its lock or read its committed hash),
     * most requests also retry keys of earlier rounds (committed: answered by the lock-free probe
     * when every item of a request is one), and some requests are nothing but retries.
     */
    @Test
    void racingFirstPushesAndRetriesOfTheSameKeysStoreEachKeyOnce() throws Exception {
        int rounds = 40;
        PushEngine[] engines = {
            new PushEngine(new PushRepository(poolA), DedupCache.DISABLED),
            new PushEngine(new PushRepository(poolB), DedupCache.DISABLED)
        };
        ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        java.util.concurrent.CyclicBarrier round = new java.util.concurrent.CyclicBarrier(CLIENTS);
        for (int c = 0; c < CLIENTS; c++) {
            PushEngine engine = engines[c % 2];
            long seed = 7000 + c;
            clients.submit(() -> {
                Random rnd = new Random(seed);
                for (int k = 0; k < rounds; k++) {
                    List<PushCommand> items = new ArrayList<>();
                    int kind = rnd.nextInt(4);
                    if (kind != 0 || k == 0) {
                        items.add(race("key-" + k)); // the round's first push, racing
                    }
                    int retries = kind == 1 ? 0 : 1 + rnd.nextInt(3);
                    for (int i = 0; i < retries && k > 0; i++) {
                        String old = "key-" + rnd.nextInt(k);
                        if (items.stream().noneMatch(x -> x.transactionId().equals(old))) {
                            items.add(race(old));
                        }
                    }
                    round.await(60, TimeUnit.SECONDS);
                    pushRecording(engine, items, answers, failures);
                }
                return null;
            });
        }
        clients.shutdown();
        assertTrue(clients.awaitTermination(5, TimeUnit.MINUTES), "clients did not finish (deadlock?)");
        assertTrue(failures.isEmpty(), () -> failures.size() + " failures, the first: " + failures.stream().limit(3).toList());
        assertEquals(rounds, answers.stream().map(Answer::txn).distinct().count(), "every round's key was pushed");
        assertTrue(answers.stream().filter(a -> a.status() == PushStatus.DUPLICATE).count() > CLIENTS * rounds / 2,
                "most answers are duplicates");
        assertExactlyOnce("race", answers);
    }

    private static PushCommand race(String txn) {
        return PushCommand.json("race", "hot", txn, "{}".getBytes(StandardCharsets.UTF_8), null);
    }

    /**
     * Stored rows = distinct (partition, id) answered; every answer for one id carries the stored
     * message id; each id was answered queued exactly once; offsets are dense.
     */
    static void assertExactlyOnce(String queue, Iterable<Answer> answers) {
        // every answer for one (partition, id) carries the same message id
        Map<String, UUID> idOf = new HashMap<>();
        Map<String, Integer> queued = new HashMap<>();
        for (Answer a : answers) {
            String key = a.partition() + "/" + a.txn();
            UUID prev = idOf.putIfAbsent(key, a.messageId());
            if (prev != null) {
                assertEquals(prev, a.messageId(), "two message ids answered for " + key);
            }
            if (a.status() == PushStatus.QUEUED) {
                queued.merge(key, 1, Integer::sum);
            }
        }
        // each distinct id was answered "queued" exactly once
        for (String key : idOf.keySet()) {
            assertEquals(1, queued.getOrDefault(key, 0), "queued answers for " + key);
        }

        // the database holds exactly one message per distinct id, under the answered message id
        Map<String, UUID> stored = new ConcurrentHashMap<>();
        int rows = 0;
        for (Row r : audit.query("SELECT p.name, m.transaction_id, m.message_id FROM exactly.messages m "
                + "JOIN exactly.partitions p ON p.id = m.partition_id JOIN exactly.queues q ON q.id = p.queue_id "
                + "WHERE q.name = '" + queue + "'").executeAndAwait()) {
            rows++;
            UUID prev = stored.put(r.getString(0) + "/" + r.getString(1), r.getUUID(2));
            assertNull(prev, "stored twice: " + r.getString(0) + "/" + r.getString(1));
        }
        assertEquals(idOf.size(), rows);
        assertEquals(idOf, stored);
        Set<String> hashesPerOffset = new java.util.HashSet<>();
        for (Row r : audit.query("SELECT partition_id, \"offset\", count(*) FROM exactly.txn_hashes "
                + "WHERE partition_id IN (SELECT p.id FROM exactly.partitions p JOIN exactly.queues q ON q.id = p.queue_id "
                + "WHERE q.name = '" + queue + "') GROUP BY 1, 2 HAVING count(*) > 1").executeAndAwait()) {
            hashesPerOffset.add(r.getLong(0) + "/" + r.getLong(1));
        }
        assertTrue(hashesPerOffset.isEmpty(), "offsets with two hashes: " + hashesPerOffset);
        // offsets are dense per partition: last_offset + 1 = rows stored
        for (Row r : audit.query("SELECT p.last_offset, (SELECT count(*) FROM exactly.messages m WHERE m.partition_id = p.id) "
                + "FROM exactly.partitions p JOIN exactly.queues q ON q.id = p.queue_id WHERE q.name = '" + queue + "'").executeAndAwait()) {
            assertEquals(r.getLong(0) + 1, r.getLong(1));
        }
    }
}
