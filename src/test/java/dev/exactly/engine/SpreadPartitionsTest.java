package dev.exactly.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.engine.fusion.FusingWriter;
import dev.exactly.engine.fusion.FusionSettings;
import dev.exactly.engine.fusion.ScheduledLingerTimer;
import dev.exactly.queue.QueueOption;
import dev.exactly.queue.QueueRepository;
import dev.exactly.testing.EnginePools;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Queues that spread their messages by key (spreadPartitions) against a real
 * PostgreSQL: the route is a function of the key on every instance (checked against the stored
 * hashes by SQL), the store refuses a stale routing and the engine routes again, a named partition
 * is refused with nothing written, the option changes only while the queue holds no hash, and
 * under 16 clients on two instances (one of them fusing) every key is stored exactly once.
 */
class SpreadPartitionsTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    private EnginePools db;
    private Pool poolA;
    private Pool poolB;

    @BeforeEach
    void setUp() {
        db = EnginePools.migrated();
        poolA = db.pool(8);
        poolB = db.pool(8);
    }

    @AfterEach
    void tearDown() {
        db.close();
    }

    private static PushCommand unnamed(String queue, String txn) {
        return PushCommand.json(queue, null, txn, ("{\"k\":\"" + txn + "\"}").getBytes(StandardCharsets.UTF_8), null);
    }

    private void spread(String queue, int n) {
        new QueueRepository(poolA).write(queue, Map.of(QueueOption.SPREAD_PARTITIONS, n), false).await().atMost(WAIT);
    }

    private long number(String sql, Object... args) {
        return poolA.preparedQuery(sql).execute(Tuple.from(args)).await().atMost(WAIT).iterator().next().getLong(0);
    }

    /**
     * Messages of the queue whose partition is not the one the SQL side computes from the stored
     * hash: 'spread-' || (high 64 bits of the hash, unsigned) mod n. Independent of the Java route.
     */
    private long misrouted(String queue, int n) {
        return number("SELECT count(*) FROM exactly.messages m JOIN exactly.partitions p ON p.id = m.partition_id "
                + "JOIN exactly.queues q ON q.id = p.queue_id JOIN exactly.txn_hashes h "
                + "ON h.partition_id = m.partition_id AND h.\"offset\" = m.\"offset\" "
                + "CROSS JOIN LATERAL (SELECT ('x' || encode(substring(h.hash FROM 1 FOR 8), 'hex'))::bit(64)::bigint::numeric AS s) v "
                + "WHERE q.name = $1 AND p.name <> 'spread-' || mod(CASE WHEN v.s < 0 THEN v.s + 18446744073709551616 "
                + "ELSE v.s END, $2)::text", queue, n);
    }

    @Test
    void theRouteIsTheHighSixtyFourBitsOfTheStoredHashModuloN() {
        // stable across versions and instances: where a stored key lives is part of the data's
        // meaning (values from XXH3-128 of the UTF-8 key, high 64 bits: d303ab4ecd501a89 for order-42)
        assertEquals(9, KeySpread.indexOf(TransactionHash.of("order-42"), 16));
        assertEquals(201, KeySpread.indexOf(TransactionHash.of("order-42"), 1000));
        assertEquals(4, KeySpread.indexOf(TransactionHash.of("a"), 16));
        assertEquals(2, KeySpread.indexOf(TransactionHash.of("caf\u00e9"), 16));
        assertEquals("spread-14", KeySpread.partitionOf(
                TransactionHash.of("redrive:0192f3c4-0000-7000-8000-000000000000"), 16));
        byte[] h = new byte[16];
        h[0] = (byte) 0xff; // 0xff00000000000000 unsigned = 18374686479671623680
        assertEquals((int) (new java.math.BigInteger("18374686479671623680").mod(java.math.BigInteger.valueOf(1000))
                .longValue()), KeySpread.indexOf(h, 1000));
        assertEquals("spread-7", KeySpread.partitionName(7));
        assertThrows(IllegalArgumentException.class, () -> KeySpread.indexOf(h, 0));
        assertThrows(IllegalArgumentException.class, () -> KeySpread.indexOf(h, KeySpread.MAX_PARTITIONS + 1));
    }

    @Test
    void theDatabasesSpreadPartitionFunctionRoutesAsKeySpreadDoes() {
        Random rnd = new Random(16);
        for (int i = 0; i < 300; i++) {
            String key = i < 100 ? "k-" + i : UUID.randomUUID().toString() + rnd.nextInt();
            byte[] hash = TransactionHash.of(key);
            int n = 2 + rnd.nextInt(KeySpread.MAX_PARTITIONS - 1);
            String sql = poolA.preparedQuery("SELECT exactly.spread_partition($1, $2)")
                    .execute(Tuple.of(io.vertx.core.buffer.Buffer.buffer(hash), n)).await().atMost(WAIT)
                    .iterator().next().getString(0);
            assertEquals(KeySpread.partitionOf(hash, n), sql, key + " over " + n);
        }
    }

    @Test
    void theSameKeyLandsInTheSamePartitionAcrossRequestsAndInstances() {
        spread("hot", 16);
        PushEngine a = new PushEngine(new PushRepository(poolA), DedupCache.DISABLED);
        PushEngine b = new PushEngine(new PushRepository(poolB), DedupCache.DISABLED);
        List<PushCommand> batch = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            batch.add(unnamed("hot", "k-" + i));
        }
        Map<String, PushVerdict> first = new HashMap<>();
        for (PushVerdict v : a.push(batch).await().atMost(WAIT)) {
            assertEquals(PushStatus.QUEUED, v.status());
            assertTrue(v.partition().startsWith(KeySpread.PREFIX), v.partition());
            first.put(v.transactionId(), v);
        }
        assertEquals(16, first.values().stream().map(PushVerdict::partition).distinct().count(),
                "200 keys reach every one of the 16 partitions");
        // again, one key per request, on the other instance, in another order
        for (int i = 199; i >= 0; i -= 3) {
            PushVerdict v = b.push(List.of(unnamed("hot", "k-" + i))).await().atMost(WAIT).get(0);
            PushVerdict f = first.get("k-" + i);
            assertEquals(PushStatus.DUPLICATE, v.status(), "k-" + i);
            assertEquals(f.partition(), v.partition(), "k-" + i);
            assertEquals(f.messageId(), v.messageId(), "k-" + i);
        }
        assertEquals(200, number("SELECT count(*) FROM exactly.messages"));
        assertEquals(0, misrouted("hot", 16), "every message sits in the partition its stored hash names");
        // an item without a transactionId spreads by its own message id
        PushVerdict own = a.push(List.of(unnamed("hot", null))).await().atMost(WAIT).get(0);
        assertEquals(KeySpread.partitionOf(TransactionHash.of(own.messageId().toString()), 16), own.partition());
    }

    @Test
    void anInstanceThatBelievedTheQueueUnspreadLearnsAndRoutesAgainWritingNothingElsewhere() {
        PushRepository store = new PushRepository(poolA);
        PushEngine a = new PushEngine(store, DedupCache.DISABLED);
        spread("late", 4); // after the engine was built: it believes 0
        long calls = store.calls();
        PushVerdict v = a.push(List.of(unnamed("late", "x"))).await().atMost(WAIT).get(0);
        assertEquals(PushStatus.QUEUED, v.status());
        assertEquals(KeySpread.partitionOf(TransactionHash.of("x"), 4), v.partition());
        assertEquals(2, store.calls() - calls, "refused once (EXS01), then routed again");
        assertEquals(0, number("SELECT count(*) FROM exactly.partitions WHERE name = 'Default'"),
                "the refused attempt's partition was rolled back with it");
        assertEquals(1, number("SELECT count(*) FROM exactly.messages"));
    }

    @Test
    void aStaleCountIsRefusedByTheStoreAfterAChangeOnAQueueWhoseHashesWerePurged() {
        PushEngine a = new PushEngine(new PushRepository(poolA), DedupCache.DISABLED);
        spread("purged", 4);
        assertEquals(PushStatus.QUEUED, a.push(List.of(unnamed("purged", "k"))).await().atMost(WAIT).get(0).status());
        QueueRepository queues = new QueueRepository(poolA);
        // the queue holds a hash: the change is refused, nothing changes
        Throwable refused = assertThrows(CompletionException.class, () -> queues
                .write("purged", Map.of(QueueOption.SPREAD_PARTITIONS, 8), false).subscribeAsCompletionStage().join());
        assertInstanceOf(QueueRepository.SpreadChangeRefused.class, refused.getCause());
        assertEquals(4, number("SELECT spread_partitions FROM exactly.queues WHERE name = 'purged'"));
        // retention purges every hash (data and hashes older than 1 s; aged here instead of waited for)
        queues.write("purged", Map.of(QueueOption.RETENTION_SECONDS, 1, QueueOption.DEDUP_WINDOW_SECONDS, 1), false)
                .await().atMost(WAIT);
        poolA.query("UPDATE exactly.messages SET created_at = created_at - interval '1 hour'").execute().await().atMost(WAIT);
        poolA.query("UPDATE exactly.txn_hashes SET created_at = created_at - interval '1 hour'").execute().await().atMost(WAIT);
        poolA.query("SELECT exactly.purge_partition(id, 1000) FROM exactly.partitions").execute().await().atMost(WAIT);
        queues.write("purged", Map.of(QueueOption.SPREAD_PARTITIONS, 8), false).await().atMost(WAIT);
        // a still believes 4: the store refuses that routing, a learns 8
        PushVerdict v = a.push(List.of(unnamed("purged", "k2"))).await().atMost(WAIT).get(0);
        assertEquals(KeySpread.partitionOf(TransactionHash.of("k2"), 8), v.partition());
        assertEquals(0, misrouted("purged", 8));
    }

    @Test
    void anItemNamingAPartitionOnASpreadQueueIsRefusedAndNothingIsWritten() {
        spread("named", 4);
        PushEngine fresh = new PushEngine(new PushRepository(poolA), DedupCache.DISABLED);
        List<PushCommand> req = List.of(unnamed("named", "a"),
                PushCommand.json("named", "eu", "b", "{}".getBytes(StandardCharsets.UTF_8), null));
        // the fresh instance believes 0: the store refuses its routing, it learns 4, then refuses the item
        Throwable t = assertThrows(CompletionException.class, () -> fresh.push(req).subscribeAsCompletionStage().join());
        PartitionNamedException e = assertInstanceOf(PartitionNamedException.class, t.getCause());
        assertEquals(1, e.index());
        assertEquals(0, number("SELECT count(*) FROM exactly.messages"));
        // a queue that does not spread still honours named partitions, next to one that does
        PushVerdict plain = fresh.push(List.of(PushCommand.json("plain", "eu", "b", "{}".getBytes(StandardCharsets.UTF_8), null)))
                .await().atMost(WAIT).get(0);
        assertEquals("eu", plain.partition());
    }

    @Test
    void defaultAndNoPartitionAreTheSameOnASpreadQueue() {
        spread("dflt", 4);
        PushEngine a = new PushEngine(new PushRepository(poolA), DedupCache.DISABLED);
        PushVerdict v = a.push(List.of(PushCommand.json("dflt", "Default", "k", "{}".getBytes(StandardCharsets.UTF_8),
                null))).await().atMost(WAIT).get(0);
        assertEquals(PushStatus.QUEUED, v.status());
        assertEquals(KeySpread.partitionOf(TransactionHash.of("k"), 4), v.partition());
        // and on a queue that does not spread, Default is Default
        assertEquals("Default", a.push(List.of(PushCommand.json("plain-dflt", "Default", "k",
                "{}".getBytes(StandardCharsets.UTF_8), null))).await().atMost(WAIT).get(0).partition());
    }

    @Test
    void anInstanceNeverRefusesANamedPartitionOnAStaleBeliefThatTheQueueSpreads() {
        // instance a (pool A) changes the option, instance b (pool B, its own engine) pushes
        PushRepository storeB = new PushRepository(poolB);
        PushEngine b = new PushEngine(storeB, DedupCache.DISABLED);
        spread("stale", 4);
        PushCommand named = PushCommand.json("stale", "eu", "k", "{}".getBytes(StandardCharsets.UTF_8), null);
        // b learns N = 4 (its first routing is refused by the store, then it refuses the item)
        Throwable t = assertThrows(CompletionException.class, () -> b.push(List.of(named)).subscribeAsCompletionStage().join());
        assertInstanceOf(PartitionNamedException.class, t.getCause());
        // a turns spreading off (the queue holds no hash): b still believes 4
        spreadOn(poolA, "stale", 0);
        long calls = storeB.calls();
        PushVerdict v = b.push(List.of(named)).await().atMost(WAIT).get(0);
        assertEquals(PushStatus.QUEUED, v.status());
        assertEquals("eu", v.partition(), "the database says the queue does not spread: the named partition is honoured");
        assertEquals(1, storeB.calls() - calls, "one push: the belief was checked with a read, not a refused push");
        // the same for a transaction's grouping (what /api/v1/transaction runs), and b now knows
        PushCommand other = PushCommand.json("stale", "us", "k2", "{}".getBytes(StandardCharsets.UTF_8), null);
        assertEquals("us", b.group(List.of(other)).await().atMost(WAIT).segments().get(0).partition().partition());
        // and a refusal stays a refusal when the database confirms the spread
        spreadOn(poolA, "stale-on", 4);
        PushEngine c = new PushEngine(new PushRepository(poolA), DedupCache.DISABLED);
        assertThrows(CompletionException.class, () -> c.push(List.of(unnamed("stale-on", "x"),
                PushCommand.json("stale-on", "eu", "y", "{}".getBytes(StandardCharsets.UTF_8), null)))
                .subscribeAsCompletionStage().join());
        Throwable again = assertThrows(CompletionException.class, () -> c.group(List.of(
                PushCommand.json("stale-on", "eu", "y", "{}".getBytes(StandardCharsets.UTF_8), null)))
                .subscribeAsCompletionStage().join());
        assertInstanceOf(PartitionNamedException.class, again.getCause());
        assertEquals(1, number("SELECT count(*) FROM exactly.messages"), "only b's honoured push");
    }

    private static void spreadOn(Pool pool, String queue, int n) {
        new QueueRepository(pool).write(queue, Map.of(QueueOption.SPREAD_PARTITIONS, n), false).await().atMost(WAIT);
    }

    @Test
    void sixteenClientsTwoInstancesOverlappingKeysStoreEachKeyOnceAndEveryPartitionIsPopped() throws Exception {
        spread("conc", 16);
        ScheduledLingerTimer timer = new ScheduledLingerTimer();
        PushRepository storeB = new PushRepository(poolB);
        PushEngine[] engines = {
            new PushEngine(new PushRepository(poolA), DedupCache.DISABLED),
            new PushEngine(new FusingWriter(new DirectWriter(storeB, DedupCache.DISABLED),
                    FusionSettings.of(Duration.ofMillis(1), 1000, 8 << 20, 2), timer), storeB)
        };
        record Answer(String txn, String partition, UUID id, PushStatus status) {
        }
        ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        ExecutorService clients = Executors.newFixedThreadPool(16);
        CountDownLatch go = new CountDownLatch(1);
        for (int c = 0; c < 16; c++) {
            PushEngine engine = engines[c % 2];
            long seed = 4200 + c;
            clients.submit(() -> {
                Random rnd = new Random(seed);
                go.await();
                for (int r = 0; r < 40; r++) {
                    List<PushCommand> items = new ArrayList<>();
                    int n = rnd.nextInt(3) == 0 ? 1 + rnd.nextInt(10) : 1;
                    for (int i = 0; i < n; i++) {
                        items.add(unnamed("conc", "key-" + rnd.nextInt(300)));
                    }
                    try {
                        for (PushVerdict v : engine.push(items).await().atMost(WAIT)) {
                            answers.add(new Answer(v.transactionId(), v.partition(), v.messageId(), v.status()));
                        }
                    } catch (Throwable t) {
                        failures.add(t);
                    }
                }
                return null;
            });
        }
        go.countDown();
        clients.shutdown();
        assertTrue(clients.awaitTermination(5, TimeUnit.MINUTES), "clients did not finish");
        timer.close();
        assertTrue(failures.isEmpty(), () -> failures.size() + " failures, the first: " + failures.peek());

        Map<String, UUID> idOf = new HashMap<>();
        Map<String, String> partitionOf = new HashMap<>();
        Map<String, Integer> queued = new HashMap<>();
        for (Answer a : answers) {
            UUID prev = idOf.putIfAbsent(a.txn(), a.id());
            assertEquals(prev == null ? a.id() : prev, a.id(), "one message id per key: " + a.txn());
            String p = partitionOf.putIfAbsent(a.txn(), a.partition());
            assertEquals(p == null ? a.partition() : p, a.partition(), "one partition per key: " + a.txn());
            if (a.status() == PushStatus.QUEUED) {
                queued.merge(a.txn(), 1, Integer::sum);
            }
        }
        for (String k : idOf.keySet()) {
            assertEquals(1, queued.getOrDefault(k, 0), "queued answers for " + k);
        }
        assertEquals(idOf.size(), number("SELECT count(*) FROM exactly.messages"), "one stored message per key");
        assertEquals(idOf.size(), number("SELECT count(DISTINCT transaction_id) FROM exactly.messages"));
        assertEquals(0, misrouted("conc", 16));

        // consumers are unaffected: pops (no partition named) drain every one of the 16 partitions
        Set<String> popped = new HashSet<>();
        Set<String> partitions = new HashSet<>();
        for (int i = 0; i < 40 && popped.size() < idOf.size(); i++) {
            // each pop leases the partition it picks (fewer than 100 messages each): the next one picks another
            for (Row r : poolA.preparedQuery("SELECT * FROM exactly.pop($1, NULL, $2, $3, $4)")
                    .execute(Tuple.of("conc", "g", 100, 300)).await().atMost(WAIT)) {
                popped.add(r.getString("transaction_id"));
                partitions.add(r.getString("partition_name"));
            }
        }
        assertEquals(idOf.keySet(), popped, "every stored key was delivered");
        assertEquals(16, partitions.size(), "from all 16 partitions");
    }
}
