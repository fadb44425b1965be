package dev.exactly.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.engine.cache.CacheStats;
import dev.exactly.engine.cache.Ticker;
import dev.exactly.engine.cache.TxnHashRepository;
import dev.exactly.engine.cache.WarmDedupCache;
import dev.exactly.engine.fusion.FusingWriter;
import dev.exactly.engine.fusion.FusionSettings;
import dev.exactly.engine.fusion.ScheduledLingerTimer;
import dev.exactly.queue.QueueOption;
import dev.exactly.queue.QueueRepository;
import dev.exactly.testing.CacheDefaults;
import dev.exactly.testing.EnginePools;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Differential test of the warm cache: random operation sequences against three engine instances
 * sharing one database (cache on with fusion, as a server; cache on with a tiny memory cap; cache
 * off, as a Lambda), interleaved at random, each push also replayed on a cache-off reference
 * engine over a second database. Every verdict, offset and message id must be what the reference
 * gives (message ids compared up to the renaming between the two databases: a duplicate must
 * carry the id the same instance's database gave the original).
 *
 * <p>Operations: pushes (duplicates, several partitions, multi-partition requests, items without
 * a transactionId), window changes through {@link QueueRepository} (sometimes announced to a
 * cache as /configure does, sometimes only discovered), purges (hash rows and/or message data
 * deleted below a random offset with the watermarks advanced under the row lock, as retention
 * will), waits for in-flight hydrations, and time jumps: every stored row of the sequence aged by
 * 1000 s in both databases while the caches' clocks advance 1000 s. Windows are chosen from
 * {0, 1500, 2500, 3600, 7200} s, so no row's age is ever near a window edge and the two databases
 * agree although their clocks differ by milliseconds.
 *
 * <p>A failure prints its seed and the sequence's operations; {@code
 * -Dexactly.differential.seed=N} replays that one sequence, {@code
 * -Dexactly.differential.sequences=N} changes how many run (default 1000). Replays repeat the
 * operations exactly; the timing of background hydrations may differ.
 */
class CacheDifferentialTest {

    private static final int SEQUENCES = Integer.getInteger("exactly.differential.sequences", 1000);
    private static final Long REPLAY = Long.getLong("exactly.differential.seed");
    private static final int[] WINDOWS = {0, 1500, 2500, 3600, 7200};
    private static final long JUMP_SECONDS = 1000;
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** The tiny cache's cap: two or three small partitions. */
    private static final long TINY_CAP = 1200;

    private static EnginePools shared;
    private static EnginePools reference;
    private static Pool poolBig;
    private static Pool poolTiny;
    private static Pool poolOff;
    private static Pool poolRef;
    private static ScheduledLingerTimer timer;

    @BeforeAll
    static void setUp() {
        shared = EnginePools.migrated();
        reference = EnginePools.migrated();
        poolBig = shared.pool(4);
        poolTiny = shared.pool(4);
        poolOff = shared.pool(4);
        poolRef = reference.pool(4);
        timer = new ScheduledLingerTimer();
    }

    @AfterAll
    static void tearDown() {
        timer.close();
        shared.close();
        reference.close();
    }

    /** Totals over all sequences, to prove the run exercised what it claims to. */
    private static final class Totals {
        long ops;
        long duplicates;
        long zeroIds;
        long windowChanges;
        long purges;
        long jumps;
        long narrowed;
        long localHits;
        long fullHydrations;
        long deltaHydrations;
        long tinyPressure;
        long flushes;
        long bundles;
    }

    @Test
    void everyVerdictEqualsTheCacheOffReference() {
        long base = REPLAY != null ? REPLAY : new Random().nextLong();
        int n = REPLAY != null ? 1 : SEQUENCES;
        Totals t = new Totals();
        long started = System.nanoTime();
        for (int i = 0; i < n; i++) {
            long seed = base + i;
            StringBuilder log = new StringBuilder();
            try {
                new Sequence(seed, log, t).run();
            } catch (Throwable e) {
                throw new AssertionError("differential failure at seed " + seed + " (replay with -Dexactly.differential.seed="
                        + seed + "): " + e.getMessage() + "\noperations:\n" + log, e);
            }
        }
        System.out.printf("differential: %d sequences, %d operations in %.1f s; %d duplicates (%d zero ids), "
                        + "%d window changes, %d purges, %d time jumps; big cache: %d narrowed probes, %d local hits, "
                        + "%d full + %d delta hydrations, %d fused flushes, %d bundles; tiny cache: %d evictions+suppressions%n",
                n, t.ops, (System.nanoTime() - started) / 1e9, t.duplicates, t.zeroIds, t.windowChanges, t.purges, t.jumps,
                t.narrowed, t.localHits, t.fullHydrations, t.deltaHydrations, t.flushes, t.bundles, t.tinyPressure);
        if (REPLAY == null && n >= 200) {
            // the run must have exercised the cache, not only agreed with the reference
            assertTrue(t.narrowed > 0 && t.localHits > 0 && t.deltaHydrations > 0 && t.fullHydrations > 0);
            assertTrue(t.tinyPressure > 0 && t.windowChanges > 0 && t.purges > 0 && t.jumps > 0 && t.zeroIds > 0);
            assertTrue(t.duplicates > 0 && t.flushes > 0 && t.bundles > 0);
        }
    }

    private static final class Sequence {
        final Random rnd;
        final StringBuilder log;
        final Totals totals;
        final String tag;
        final AtomicLong jump = new AtomicLong();
        final WarmDedupCache big;
        final WarmDedupCache tiny;
        final FusingWriter fusing;
        final PushEngine[] engines;
        final String[] engineNames = {"big+fusion", "tiny", "off"};
        final PushEngine ref;
        final List<String> queues = new ArrayList<>();
        final List<String> partitions = new ArrayList<>();
        final List<String> txns = new ArrayList<>();
        /** queue/partition/offset → {id in the shared database, id in the reference}. */
        final Map<String, UUID[]> stored = new HashMap<>();

        Sequence(long seed, StringBuilder log, Totals totals) {
            this.rnd = new Random(seed);
            this.log = log;
            this.totals = totals;
            this.tag = "s" + Long.toUnsignedString(seed, 36);
            Ticker ticker = () -> System.nanoTime() / 1_000_000L + jump.get();
            big = new WarmDedupCache(new TxnHashRepository(poolBig), CacheDefaults.settings(512), ticker);
            tiny = new WarmDedupCache(new TxnHashRepository(poolTiny), CacheDefaults.settings(512).withMaxBytes(TINY_CAP), ticker);
            PushRepository bigStore = new PushRepository(poolBig);
            fusing = new FusingWriter(new DirectWriter(bigStore, big),
                    FusionSettings.of(Duration.ofMillis(1), 1000, 8 << 20, 2), timer);
            engines = new PushEngine[] {new PushEngine(fusing, bigStore), new PushEngine(new PushRepository(poolTiny), tiny),
                    new PushEngine(new PushRepository(poolOff), DedupCache.DISABLED)};
            ref = new PushEngine(new PushRepository(poolRef), DedupCache.DISABLED);
            int nq = 1 + rnd.nextInt(2);
            for (int q = 0; q < nq; q++) {
                queues.add(tag + "-q" + q);
            }
            int np = 1 + rnd.nextInt(3);
            for (int p = 0; p < np; p++) {
                partitions.add("p" + p);
            }
            int nt = 2 + rnd.nextInt(12);
            for (int i = 0; i < nt; i++) {
                txns.add("t" + i);
            }
        }

        void run() {
            if (rnd.nextBoolean()) {
                configure(queues.get(0), WINDOWS[1 + rnd.nextInt(WINDOWS.length - 1)]);
            }
            int ops = 5 + rnd.nextInt(20);
            for (int i = 0; i < ops; i++) {
                int r = rnd.nextInt(100);
                if (r < 74) {
                    push();
                } else if (r < 82) {
                    configure(queues.get(rnd.nextInt(queues.size())), WINDOWS[rnd.nextInt(WINDOWS.length)]);
                } else if (r < 89) {
                    purge();
                } else if (r < 95) {
                    quiesce();
                    log.append("  wait for hydrations\n");
                } else {
                    timeJump();
                }
                totals.ops++;
            }
            quiesce();
            CacheStats b = big.stats();
            CacheStats s = tiny.stats();
            totals.narrowed += b.narrowedProbes() + s.narrowedProbes();
            totals.localHits += b.localHits() + s.localHits();
            totals.fullHydrations += b.fullHydrations() + s.fullHydrations();
            totals.deltaHydrations += b.deltaHydrations() + s.deltaHydrations();
            totals.tinyPressure += s.evictions() + s.suppressions();
            totals.flushes += fusing.flushes();
            totals.bundles += fusing.bundles();
            // at most one skipped enforcement (a busy eviction lock) above the cap
            assertTrue(s.residentBytes() <= TINY_CAP + 8192, "tiny cache over its cap: " + s.residentBytes());
        }

        void push() {
            int r = rnd.nextInt(4);
            int e = r < 2 ? 0 : r - 1; // half of the pushes go to the server-shaped instance
            int n = 1 + rnd.nextInt(rnd.nextInt(4) == 0 ? 8 : 3);
            boolean onePartition = rnd.nextInt(3) != 0;
            String q0 = queues.get(rnd.nextInt(queues.size()));
            String p0 = partitions.get(rnd.nextInt(partitions.size()));
            List<PushCommand> cmds = new ArrayList<>();
            StringBuilder desc = new StringBuilder();
            for (int i = 0; i < n; i++) {
                String q = onePartition ? q0 : queues.get(rnd.nextInt(queues.size()));
                String p = onePartition ? p0 : partitions.get(rnd.nextInt(partitions.size()));
                String txn = rnd.nextInt(10) == 0 ? null : txns.get(rnd.nextInt(txns.size()));
                cmds.add(PushCommand.json(q, p, txn, ("{\"i\":" + i + "}").getBytes(StandardCharsets.UTF_8), null));
                desc.append(' ').append(q.substring(tag.length() + 1)).append('/').append(p).append(':').append(txn);
            }
            log.append("  push via ").append(engineNames[e]).append(':').append(desc).append('\n');
            List<PushVerdict> got = engines[e].push(cmds).await().atMost(WAIT);
            List<PushVerdict> want = ref.push(cmds).await().atMost(WAIT);
            assertEquals(want.size(), got.size());
            for (int i = 0; i < got.size(); i++) {
                PushVerdict g = got.get(i);
                PushVerdict w = want.get(i);
                String where = "item " + i + " (" + cmds.get(i).queue() + "/" + cmds.get(i).partition() + ":"
                        + cmds.get(i).transactionId() + ") via " + engineNames[e];
                assertEquals(w.status(), g.status(), where + ": status");
                assertEquals(w.offset(), g.offset(), where + ": offset");
                String key = w.queue() + "/" + w.partition() + "/" + w.offset();
                if (w.status() == PushStatus.QUEUED) {
                    assertNull(stored.put(key, new UUID[] {g.messageId(), w.messageId()}), where + ": offset reused");
                } else {
                    totals.duplicates++;
                    if (w.messageId().equals(PushVerdict.PURGED)) {
                        totals.zeroIds++;
                        assertEquals(PushVerdict.PURGED, g.messageId(), where + ": the original's data was purged");
                    } else {
                        UUID[] ids = stored.get(key);
                        assertNotNull(ids, where + ": duplicate of an unknown original");
                        assertEquals(ids[1], w.messageId(), where + ": reference id");
                        assertEquals(ids[0], g.messageId(), where + ": messageId of the original");
                    }
                }
            }
        }

        void configure(String queue, int window) {
            int tell = rnd.nextInt(3);
            log.append("  configure ").append(queue.substring(tag.length() + 1)).append(" window=").append(window)
                    .append(tell == 0 ? " (big cache told)" : tell == 1 ? " (tiny cache told)" : " (no cache told)")
                    .append('\n');
            Map<QueueOption, Integer> options = Map.of(QueueOption.DEDUP_WINDOW_SECONDS, window);
            new QueueRepository(poolOff).write(queue, options, false).await().atMost(WAIT);
            new QueueRepository(poolRef).write(queue, options, false).await().atMost(WAIT);
            if (tell == 0) {
                big.queueReconfigured(queue);
            } else if (tell == 1) {
                tiny.queueReconfigured(queue);
            }
            totals.windowChanges++;
        }

        void purge() {
            String q = queues.get(rnd.nextInt(queues.size()));
            String p = partitions.get(rnd.nextInt(partitions.size()));
            int kind = rnd.nextInt(3); // 0: hash rows, 1: message data, 2: both
            long pick = rnd.nextLong();
            Long x = purgeIn(poolOff, q, p, kind, pick, null);
            if (x == null) {
                return; // the partition does not exist yet
            }
            Long y = purgeIn(poolRef, q, p, kind, pick, x);
            assertEquals(x, y);
            log.append("  purge ").append(q.substring(tag.length() + 1)).append('/').append(p)
                    .append(kind == 0 ? " hashes" : kind == 1 ? " data" : " hashes+data").append(" below ").append(x)
                    .append('\n');
            totals.purges++;
        }

        /** Retention's purge, under the partition's row lock. Returns the cut offset, or null. */
        private static Long purgeIn(Pool pool, String q, String p, int kind, long pick, Long given) {
            return pool.withTransaction(c -> c.preparedQuery("SELECT p.id, p.last_offset, p.txns_start, p.data_start "
                            + "FROM exactly.partitions p JOIN exactly.queues q ON q.id = p.queue_id "
                            + "WHERE q.name = $1 AND p.name = $2 FOR UPDATE OF p").execute(Tuple.of(q, p))
                    .flatMap(rows -> {
                        if (rows.size() == 0) {
                            return io.smallrye.mutiny.Uni.createFrom().nullItem();
                        }
                        Row r = rows.iterator().next();
                        long id = r.getLong(0);
                        long last = r.getLong(1);
                        long from = kind == 1 ? r.getLong(3) : r.getLong(2);
                        long x = given != null ? given : from + Math.floorMod(pick, last + 2 - from);
                        String hashes = "DELETE FROM exactly.txn_hashes WHERE partition_id = $1 AND \"offset\" < $2";
                        String data = "DELETE FROM exactly.messages WHERE partition_id = $1 AND \"offset\" < $2";
                        io.smallrye.mutiny.Uni<?> work = io.smallrye.mutiny.Uni.createFrom().voidItem();
                        if (kind != 1) {
                            work = work.flatMap(v -> c.preparedQuery(hashes).execute(Tuple.of(id, x))).flatMap(v -> c
                                    .preparedQuery("UPDATE exactly.partitions SET txns_start = GREATEST(txns_start, $2) WHERE id = $1")
                                    .execute(Tuple.of(id, x)));
                        }
                        if (kind != 0) {
                            work = work.flatMap(v -> c.preparedQuery(data).execute(Tuple.of(id, x))).flatMap(v -> c
                                    .preparedQuery("UPDATE exactly.partitions SET data_start = GREATEST(data_start, $2) WHERE id = $1")
                                    .execute(Tuple.of(id, x)));
                        }
                        return work.map(v -> x);
                    })).await().atMost(WAIT);
        }

        void timeJump() {
            quiesce(); // no hydration may straddle the jump: real clocks do not leap
            for (Pool pool : List.of(poolOff, poolRef)) {
                for (String table : List.of("txn_hashes", "messages")) {
                    pool.preparedQuery("UPDATE exactly." + table + " SET created_at = created_at - make_interval(secs => $1) "
                                    + "WHERE partition_id IN (SELECT p.id FROM exactly.partitions p JOIN exactly.queues q "
                                    + "ON q.id = p.queue_id WHERE q.name LIKE $2)")
                            .execute(Tuple.of((double) JUMP_SECONDS, tag + "-%")).await().atMost(WAIT);
                }
            }
            jump.addAndGet(JUMP_SECONDS * 1000);
            log.append("  time jump +").append(JUMP_SECONDS).append(" s\n");
            totals.jumps++;
        }

        void quiesce() {
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (big.loadsInFlight() > 0 || tiny.loadsInFlight() > 0) {
                assertTrue(System.nanoTime() < deadline, "a hydration never finished");
                Thread.onSpinWait();
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
        }
    }
}
