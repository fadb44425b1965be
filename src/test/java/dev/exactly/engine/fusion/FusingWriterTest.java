package dev.exactly.engine.fusion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.db.DeadlineExceededException;
import dev.exactly.db.RequestDeadline;
import dev.exactly.db.StoreUnavailableException;
import dev.exactly.engine.DedupCache;
import dev.exactly.engine.DirectWriter;
import dev.exactly.engine.PushCommand;
import dev.exactly.engine.PushEngine;
import dev.exactly.engine.PushStatus;
import dev.exactly.engine.PushRepository;
import dev.exactly.engine.PushVerdict;
import dev.exactly.engine.Segment;
import dev.exactly.engine.SegmentOutcome;
import dev.exactly.engine.SegmentWriter;
import dev.exactly.engine.cache.Ticker;
import dev.exactly.engine.cache.TxnHashRepository;
import dev.exactly.engine.cache.WarmDedupCache;
import dev.exactly.queue.QueueOption;
import dev.exactly.queue.QueueRepository;
import dev.exactly.testing.CacheDefaults;
import dev.exactly.testing.EnginePools;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Layer 2 against a real PostgreSQL: fused flushes, single flight, flush on size, the adaptive
 * linger (an idle lane waits only for as many requests as its last flush carried, so one arriving
 * at a time never waits), window 0, multi-partition requests (no lane), failures, and exactness
 * under concurrency. SQL
 * calls are counted by the store; the order of events is controlled by a gate in front of the
 * store and a manual linger timer, never by timing.
 */
class FusingWriterTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private EnginePools db;
    private EnginePools refDb;
    private Pool pool;
    private PushRepository store;
    private Gate gate;
    private ManualTimer timer;

    @BeforeEach
    void setUp() {
        db = EnginePools.migrated();
        pool = db.pool(8);
        store = new PushRepository(pool);
        gate = new Gate(new DirectWriter(store, DedupCache.DISABLED));
        timer = new ManualTimer();
    }

    @AfterEach
    void tearDown() {
        db.close();
        if (refDb != null) {
            refDb.close();
        }
    }

    /** Holds the next write until opened: a flush "in flight" for as long as the test wants. */
    static final class Gate implements SegmentWriter {
        final SegmentWriter inner;
        final java.util.concurrent.atomic.AtomicInteger writes = new java.util.concurrent.atomic.AtomicInteger();
        volatile CompletableFuture<Void> next;
        volatile CompletableFuture<Void> held;
        /** Every held write by its (1-based) number. */
        final Map<Integer, CompletableFuture<Void>> heldByWrite = new ConcurrentHashMap<>();
        /** The write with this (1-based) number fails. */
        volatile int failWrite = -1;
        /** The write with this (1-based) number throws {@link #thrown} instead of answering a Uni. */
        volatile int throwWrite = -1;
        volatile Throwable thrown;

        Gate(SegmentWriter inner) {
            this.inner = inner;
        }

        /** The next write waits until {@link #open()}. */
        synchronized void closeNext() {
            next = new CompletableFuture<>();
        }

        void open() {
            held.complete(null);
        }

        /** Lets the held write with this (1-based) number through. */
        void open(int write) {
            heldByWrite.get(write).complete(null);
        }

        @Override
        public Uni<List<SegmentOutcome>> write(List<Segment> segments) {
            // Counting a write and taking the gate are one step: a test that saw the count reach n
            // and then closes the gate again closes it for write n + 1, never for write n.
            int n;
            CompletableFuture<Void> c;
            synchronized (this) {
                n = writes.incrementAndGet();
                c = next;
                next = null;
                if (c != null) {
                    held = c;
                    heldByWrite.put(n, c);
                }
            }
            if (n == throwWrite) {
                sneakyThrow(thrown);
            }
            Uni<List<SegmentOutcome>> w = n == failWrite
                    ? Uni.createFrom().failure(new IllegalStateException("database away"))
                    : inner.write(segments);
            if (c == null) {
                return w;
            }
            return Uni.createFrom().completionStage(c).flatMap(v -> w);
        }
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> void sneakyThrow(Throwable t) throws E {
        throw (E) t;
    }

    /** Lingers run when the test fires them. */
    static final class ManualTimer implements LingerTimer {
        final List<long[]> delays = new CopyOnWriteArrayList<>();
        final List<Runnable> tasks = new CopyOnWriteArrayList<>();

        @Override
        public void schedule(long delayNanos, Runnable task) {
            delays.add(new long[] {delayNanos});
            tasks.add(task);
        }

        /** Runs the scheduled tasks with this delay. */
        int fire(long delayNanos) {
            int n = 0;
            for (int i = 0; i < tasks.size(); i++) {
                if (delays.get(i)[0] == delayNanos) {
                    Runnable r = tasks.remove(i);
                    delays.remove(i);
                    i--;
                    r.run();
                    n++;
                }
            }
            return n;
        }

        int scheduled(long delayNanos) {
            int n = 0;
            for (long[] d : delays) {
                if (d[0] == delayNanos) {
                    n++;
                }
            }
            return n;
        }
    }

    private static final long LINGER = Duration.ofMillis(2).toNanos();

    /** One flush in flight per lane. */
    private FusingWriter fusing(int maxItems) {
        return fusing(maxItems, 1);
    }

    private FusingWriter fusing(int maxItems, int pipeline) {
        return new FusingWriter(gate, new FusionSettings(LINGER, maxItems, 8 << 20, pipeline), timer);
    }

    private static PushCommand cmd(String queue, String partition, String txn) {
        return PushCommand.json(queue, partition, txn, "{\"v\":1}".getBytes(StandardCharsets.UTF_8), null);
    }

    private static void await(BooleanSupplier condition) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "condition never held");
            Thread.onSpinWait();
        }
    }

    private static <T> List<T> all(List<CompletableFuture<T>> futures) {
        List<T> out = new ArrayList<>();
        for (CompletableFuture<T> f : futures) {
            out.add(f.orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join());
        }
        return out;
    }

    /**
     * Pushes one message (partition "p") with transactionId {@code first}, holds its flush in flight
     * at the gate, then once it reached the store pushes {@code second}, whose flush the gate holds
     * too (with pipeline depth 2 it is sent at once, beside the first).
     *
     * @return the two pushes' answers, first then second
     */
    private List<CompletableFuture<List<PushVerdict>>> twoFlushesHeld(PushEngine engine, String queue, String first,
                                                                     String second) {
        gate.closeNext();
        CompletableFuture<List<PushVerdict>> a = engine.push(List.of(cmd(queue, "p", first))).subscribeAsCompletionStage();
        await(() -> gate.writes.get() == 1);
        gate.closeNext();
        return List.of(a, engine.push(List.of(cmd(queue, "p", second))).subscribeAsCompletionStage());
    }

    /** Submits requests in order without waiting: they are all in flight together. */
    private static List<CompletableFuture<List<PushVerdict>>> submit(PushEngine engine, List<List<PushCommand>> requests) {
        List<CompletableFuture<List<PushVerdict>>> out = new ArrayList<>();
        for (List<PushCommand> r : requests) {
            out.add(engine.push(r).subscribeAsCompletionStage());
        }
        return out;
    }

    /**
     * The same requests, one after another, on an unfused, cache-off engine over a fresh database
     * whose queues got the given windows.
     */
    private List<List<PushVerdict>> reference(Map<String, Integer> windows, List<List<PushCommand>> requests) {
        refDb = EnginePools.migrated();
        Pool refPool = refDb.pool(2);
        windows.forEach((q, w) -> new QueueRepository(refPool).write(q, Map.of(QueueOption.DEDUP_WINDOW_SECONDS, w), false)
                .await().atMost(WAIT));
        PushEngine ref = new PushEngine(new PushRepository(refPool), DedupCache.DISABLED);
        List<List<PushVerdict>> out = new ArrayList<>();
        for (List<PushCommand> r : requests) {
            out.add(ref.push(r).await().atMost(WAIT));
        }
        return out;
    }

    /** Same statuses and offsets; ids equal up to the renaming between the two databases. */
    private static void assertSameVerdicts(List<List<PushVerdict>> want, List<List<PushVerdict>> got,
                                           Map<UUID, UUID> idsByRef) {
        assertEquals(want.size(), got.size());
        for (int r = 0; r < want.size(); r++) {
            for (int i = 0; i < want.get(r).size(); i++) {
                PushVerdict w = want.get(r).get(i);
                PushVerdict g = got.get(r).get(i);
                String where = "request " + r + " item " + i;
                assertEquals(w.status(), g.status(), where);
                assertEquals(w.offset(), g.offset(), where);
                if (w.status() == PushStatus.QUEUED) {
                    assertNull(idsByRef.put(w.messageId(), g.messageId()), where);
                } else {
                    assertEquals(idsByRef.get(w.messageId()), g.messageId(), where + ": the original's id");
                }
            }
        }
    }

    private long rows(String table) {
        return pool.query("SELECT count(*) FROM exactly." + table).execute().await().atMost(WAIT).iterator().next()
                .getLong(0);
    }

    // ------------------------------------------------------------------------------ fusion

    @Test
    void concurrentSingleItemPushesToOnePartitionFuseIntoFewerSqlCallsWithTheUnfusedVerdicts() {
        PushEngine direct = new PushEngine(store, DedupCache.DISABLED);
        List<List<PushCommand>> setup = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            setup.add(List.of(cmd("orders", "p", "t" + i)));
        }
        Map<UUID, UUID> ids = new HashMap<>();
        List<List<PushVerdict>> setupGot = new ArrayList<>();
        for (List<PushCommand> r : setup) {
            setupGot.add(direct.push(r).await().atMost(WAIT));
        }
        // 48 single-item requests over 12 ids (4 of them already stored), 4 without a transactionId
        List<List<PushCommand>> requests = new ArrayList<>();
        Random rnd = new Random(7);
        for (int i = 0; i < 48; i++) {
            requests.add(List.of(cmd("orders", "p", i % 12 == 11 ? null : "t" + rnd.nextInt(12))));
        }
        FusingWriter fusing = fusing(1000);
        PushEngine fused = new PushEngine(fusing, store);
        long before = store.calls();
        gate.closeNext(); // the first request flushes alone and is held in flight
        List<CompletableFuture<List<PushVerdict>>> futures = submit(fused, requests);
        await(() -> fusing.submissions() == requests.size());
        assertEquals(1, gate.writes.get(), "single flight: one write in flight, the others pending");
        gate.open();
        List<List<PushVerdict>> got = all(futures);

        long calls = store.calls() - before;
        assertEquals(2, calls, "the first alone, then the other 47 fused into one SQL call");
        assertTrue(calls < requests.size());
        assertTrue(fusing.followers() > 0, "layer 2 settled duplicates inside the flush");

        List<List<PushCommand>> sequence = new ArrayList<>(setup);
        sequence.addAll(requests);
        List<List<PushVerdict>> gotAll = new ArrayList<>(setupGot);
        gotAll.addAll(got);
        assertSameVerdicts(reference(Map.of(), sequence), gotAll, ids);
        assertEquals(4 + 8 + 4, rows("messages"), "distinct ids plus the four without a transactionId");
    }

    @Test
    void theStoredOriginalIsInheritedByEveryFollowerInAFlush() {
        PushEngine direct = new PushEngine(store, DedupCache.DISABLED);
        UUID original = direct.push(List.of(cmd("q", "p", "k"))).await().atMost(WAIT).get(0).messageId();
        FusingWriter fusing = fusing(1000);
        gate.closeNext();
        List<CompletableFuture<List<PushVerdict>>> f = submit(new PushEngine(fusing, store),
                List.of(List.of(cmd("q", "p", "first")), List.of(cmd("q", "p", "k")), List.of(cmd("q", "p", "k")),
                        List.of(cmd("q", "p", "k"), cmd("q", "p", "k"))));
        await(() -> fusing.submissions() == 4);
        gate.open();
        List<List<PushVerdict>> got = all(f);
        assertEquals(2, fusing.followers(), "the second and third request's k follow the first k in the flush");
        for (int r = 1; r < 4; r++) {
            for (PushVerdict v : got.get(r)) {
                assertEquals(PushStatus.DUPLICATE, v.status());
                assertEquals(original, v.messageId(), "the leader was itself a duplicate: its original is inherited");
                assertEquals(0, v.offset());
            }
        }
        assertEquals(2, rows("messages"));
    }

    private static PushCommand cmd(String txn, String payload) {
        return PushCommand.json("q", "p", txn, payload.getBytes(StandardCharsets.UTF_8), null);
    }

    @Test
    void aFollowerInAFlushIsComparedWithThePayloadItsLeadersIdStandsFor() {
        PushEngine direct = new PushEngine(store, DedupCache.DISABLED);
        direct.push(List.of(cmd("k", "\"A\""))).await().atMost(WAIT);
        FusingWriter fusing = fusing(1000);
        gate.closeNext();
        List<CompletableFuture<List<PushVerdict>>> f = submit(new PushEngine(fusing, store),
                List.of(List.of(cmd("first", "0")), List.of(cmd("k", "\"B\"")), List.of(cmd("k", "\"A\"")),
                        List.of(cmd("n", "\"X\"")), List.of(cmd("n", "\"Y\"")), List.of(cmd("n", "\"X\""))));
        await(() -> fusing.submissions() == 6);
        gate.open();
        List<List<PushVerdict>> got = all(f);
        assertEquals(3, fusing.followers(), "k's second request and n's second and third follow inside the flush");
        assertEquals(Boolean.FALSE, got.get(1).get(0).payloadMatches(), "the leader k: B against the stored A");
        assertEquals(Boolean.TRUE, got.get(2).get(0).payloadMatches(), "its follower: A against the stored A, not B");
        assertEquals(PushStatus.QUEUED, got.get(3).get(0).status());
        assertEquals(null, got.get(3).get(0).payloadMatches());
        assertEquals(Boolean.FALSE, got.get(4).get(0).payloadMatches(), "Y against the leader n's X, stored by this flush");
        assertEquals(Boolean.TRUE, got.get(5).get(0).payloadMatches());
        assertEquals(3, rows("messages"));
    }

    @Test
    void aFlushIsSentAsSoonAsItReachesItsSize() {
        FusingWriter fusing = fusing(8);
        gate.closeNext();
        List<List<PushCommand>> requests = new ArrayList<>();
        for (int i = 0; i < 33; i++) {
            requests.add(List.of(cmd("q", "p", "id-" + i)));
        }
        long before = store.calls();
        List<CompletableFuture<List<PushVerdict>>> f = submit(new PushEngine(fusing, store), requests);
        await(() -> fusing.submissions() == 33);
        gate.open();
        all(f);
        assertEquals(1 + 4, store.calls() - before, "1 held, then 32 pending sent as 4 flushes of 8");
        assertEquals(0, timer.scheduled(LINGER), "never lingered: the lane was busy or full");

        // with the lane idle and lingering (its last flush fused several requests), 8 arrivals fill a flush
        before = store.calls();
        List<List<PushCommand>> more = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            more.add(List.of(cmd("q", "p", "more-" + i)));
        }
        all(submit(new PushEngine(fusing, store), more));
        assertEquals(1, store.calls() - before, "flushed on size, before the linger ended");
    }

    /** Holds a first request in flight, queues {@code n} more behind it, then lets all through: a flush of n. */
    private void fuse(FusingWriter fusing, PushEngine engine, String prefix, int n) {
        gate.closeNext();
        long submitted = fusing.submissions();
        List<List<PushCommand>> requests = new ArrayList<>();
        for (int i = 0; i <= n; i++) {
            requests.add(List.of(cmd("q", "p", prefix + i)));
        }
        List<CompletableFuture<List<PushVerdict>>> f = submit(engine, requests);
        await(() -> fusing.submissions() == submitted + n + 1);
        gate.open();
        all(f);
    }

    @Test
    void aLaneWhosePushesArriveOneAtATimeNeverLingers() {
        FusingWriter fusing = fusing(1000);
        PushEngine engine = new PushEngine(fusing, store);
        long before = store.calls();
        for (int i = 0; i < 5; i++) {
            engine.push(List.of(cmd("q", "p", "one-" + i))).await().atMost(WAIT);
            assertEquals(i + 1, store.calls() - before, "flushed at once: nothing was waiting behind it");
        }
        assertEquals(0, timer.delays.size(), "no linger and no idle check was ever scheduled");
        assertEquals(0, fusing.openLanes(), "a lane that never fused is removed once idle");
    }

    @Test
    void aLingeringLaneFlushesAsSoonAsAsManyRequestsAsItsLastFlushCarriedAreBack() {
        FusingWriter fusing = fusing(1000);
        PushEngine engine = new PushEngine(fusing, store);
        fuse(fusing, engine, "a", 3); // the last flush fused 3 requests
        long before = store.calls();
        List<CompletableFuture<List<PushVerdict>>> f = submit(engine,
                List.of(List.of(cmd("q", "p", "b0")), List.of(cmd("q", "p", "b1"))));
        assertEquals(0, store.calls() - before, "two of three back: the lane waits for the third");
        assertEquals(1, timer.scheduled(LINGER), "at most the linger");
        f.add(engine.push(List.of(cmd("q", "p", "b2"))).subscribeAsCompletionStage());
        all(f);
        assertEquals(1, store.calls() - before, "the third arrival flushed all three, the linger never fired");
        assertEquals(1, timer.scheduled(LINGER), "the armed linger has not run");
    }

    @Test
    void aLingerThatEndsWithOneRequestStopsTheLaneLingering() {
        FusingWriter fusing = fusing(1000);
        PushEngine engine = new PushEngine(fusing, store);
        fuse(fusing, engine, "a", 2);
        long before = store.calls();
        CompletableFuture<List<PushVerdict>> lone = engine.push(List.of(cmd("q", "p", "lone"))).subscribeAsCompletionStage();
        assertEquals(0, store.calls() - before, "the crowd of two may come back: it lingers once");
        assertEquals(1, timer.fire(LINGER));
        lone.orTimeout(30, TimeUnit.SECONDS).join();
        assertEquals(1, store.calls() - before);
        for (int i = 0; i < 3; i++) {
            engine.push(List.of(cmd("q", "p", "next-" + i))).await().atMost(WAIT);
            assertEquals(2 + i, store.calls() - before, "its last flush carried one: the next arrival goes at once");
        }
        assertEquals(0, timer.scheduled(LINGER), "no further linger");
    }

    @Test
    void aLingeringLaneThatStaysIdleForgetsItsLingerAndIsRemoved() {
        FusingWriter fusing = fusing(1000);
        PushEngine engine = new PushEngine(fusing, store);
        fuse(fusing, engine, "a", 2);
        await(() -> fusing.openLanes() == 1);
        assertEquals(1, timer.fire(FusingWriter.IDLE_CHECK_NANOS));
        assertEquals(0, fusing.openLanes());
        long before = store.calls();
        engine.push(List.of(cmd("q", "p", "h"))).await().atMost(WAIT);
        assertEquals(1, store.calls() - before, "a fresh lane flushes at once");
        assertEquals(0, timer.scheduled(LINGER));
    }

    @Test
    void withAZeroWindowFollowersAreNotDuplicatesAndGetTheirOwnVerdicts() {
        new QueueRepository(pool).write("nodedup", Map.of(QueueOption.DEDUP_WINDOW_SECONDS, 0), false).await().atMost(WAIT);
        FusingWriter fusing = fusing(1000);
        gate.closeNext();
        List<List<PushCommand>> requests = List.of(List.of(cmd("nodedup", "p", "first")),
                List.of(cmd("nodedup", "p", "same")), List.of(cmd("nodedup", "p", "same")),
                List.of(cmd("nodedup", "p", "same")));
        long before = store.calls();
        List<CompletableFuture<List<PushVerdict>>> f = submit(new PushEngine(fusing, store), requests);
        await(() -> fusing.submissions() == 4);
        gate.open();
        List<List<PushVerdict>> got = all(f);
        assertEquals(3, store.calls() - before, "held, fused, then a second call for the two followers");
        for (List<PushVerdict> v : got) {
            assertEquals(PushStatus.QUEUED, v.get(0).status());
        }
        assertEquals(4, rows("messages"));
        assertSameVerdicts(reference(Map.of("nodedup", 0), requests), got, new HashMap<>());
    }

    // ------------------------------------------------------------------------------ single flight

    @Test
    void aMultiPartitionRequestTakesNoLaneAndStaysOneBundle() {
        FusingWriter fusing = fusing(1000);
        PushEngine engine = new PushEngine(fusing, store);
        gate.closeNext();
        long before = store.calls();
        CompletableFuture<List<PushVerdict>> single = engine.push(List.of(cmd("q", "a", "x"))).subscribeAsCompletionStage();
        await(() -> gate.writes.get() == 1);
        // partition a's flush is held before it reaches the database: the bundle does not wait for it
        List<PushVerdict> b = engine.push(List.of(cmd("q", "b", "y"), cmd("q", "a", "x"), cmd("q", "c", "z")))
                .await().atMost(WAIT);
        assertEquals(1, fusing.bundles());
        assertEquals(1, store.calls() - before, "the bundle went as one call while a's flush was held");
        assertEquals(1, fusing.openLanes(), "only a's lane is open: the bundle took none");
        for (PushVerdict v : b) {
            assertEquals(PushStatus.QUEUED, v.status());
        }
        assertFalse(single.isDone());
        gate.open();
        PushVerdict s1 = single.orTimeout(30, TimeUnit.SECONDS).join().get(0);
        assertEquals(PushStatus.DUPLICATE, s1.status(), "the bundle committed x first: the held flush finds it");
        assertEquals(b.get(1).messageId(), s1.messageId());
        assertEquals(3, rows("messages"));
    }

    @Test
    void aFailedFlushFailsEveryFusedRequestAndReleasesTheLane() {
        FusingWriter fusing = fusing(1000);
        PushEngine engine = new PushEngine(fusing, store);
        gate.closeNext();
        List<CompletableFuture<List<PushVerdict>>> f = submit(engine,
                List.of(List.of(cmd("q", "p", "a")), List.of(cmd("q", "p", "b")), List.of(cmd("q", "p", "c"))));
        await(() -> fusing.submissions() == 3);
        gate.failWrite = 2; // the fused flush of b and c
        gate.open();
        f.get(0).orTimeout(30, TimeUnit.SECONDS).join();
        for (int i = 1; i < 3; i++) {
            CompletableFuture<List<PushVerdict>> x = f.get(i);
            Throwable t = null;
            try {
                x.orTimeout(30, TimeUnit.SECONDS).join();
            } catch (RuntimeException e) {
                t = e.getCause();
            }
            assertNotNull(t, "request " + i + " must fail");
            assertEquals("database away", t.getMessage());
        }
        CompletableFuture<List<PushVerdict>> again = engine.push(List.of(cmd("q", "p", "b"))).subscribeAsCompletionStage();
        timer.fire(LINGER); // the lane fused two requests last time: it lingers
        assertEquals(PushStatus.QUEUED, again.orTimeout(30, TimeUnit.SECONDS).join().get(0).status(),
                "the lane works again");
        assertEquals(2, rows("messages"));
    }

    /**
     * A flush still under way at its requests' deadline (a stalled store: the write never ends)
     * fails every request it carries, and the requests waiting behind it, which are not written;
     * the lane is released and works again. (A write the store ends late is abandoned: its
     * statement is cancelled by dev.exactly.db.BorrowedConnections, BorrowedConnectionsDeadlineTest.)
     */
    @Test
    void aFlushStillUnderWayAtTheDeadlineReleasesItsLaneAndAnswersEveryRequest() {
        FusingWriter fusing = fusing(1000);
        PushEngine engine = new PushEngine(fusing, store);
        gate.closeNext(); // the next write is never let through: a stalled store
        long start = System.nanoTime();
        long deadline = start + TimeUnit.MILLISECONDS.toNanos(800);
        List<CompletableFuture<List<PushVerdict>>> f = RequestDeadline.within(deadline, () -> submit(engine,
                List.of(List.of(cmd("q", "p", "a")), List.of(cmd("q", "p", "b")), List.of(cmd("q", "p", "c")))));
        for (CompletableFuture<List<PushVerdict>> x : f) {
            Throwable t = failure(x);
            assertTrue(t instanceof DeadlineExceededException, String.valueOf(t));
        }
        long took = (System.nanoTime() - start) / 1_000_000;
        assertTrue(took < 800, "answered after " + took + " ms, past the deadline");
        await(() -> fusing.openLanes() == 0);
        assertEquals(1, gate.writes.get(), "b and c, late when the lane was free again, were not sent");
        gate.open(); // the stalled write's caller is gone: nothing is written for it
        assertEquals(PushStatus.QUEUED, engine.push(List.of(cmd("q", "p", "d"))).await().atMost(WAIT).get(0).status(),
                "the lane works again");
        assertEquals(1, rows("messages"));
    }

    /** How a bundle's write fails in {@link #everyFailureOfABundleReachesItsCallerAndLeavesEveryLaneWorking}. */
    enum Fault {
        /** the write's Uni fails (the database answered an error) */
        FAILS,
        /** the writer throws instead of answering */
        THROWS,
        /** the writer throws an Error (as a StackOverflowError would) */
        THROWS_ERROR
    }

    private static Throwable failure(CompletableFuture<?> f) {
        try {
            f.orTimeout(30, TimeUnit.SECONDS).join();
        } catch (java.util.concurrent.CompletionException e) {
            assertFalse(e.getCause() instanceof java.util.concurrent.TimeoutException, "the request never answered");
            return e.getCause();
        }
        return null;
    }

    @Test
    void everyFailureOfABundleReachesItsCallerAndLeavesEveryLaneWorking() {
        List<String> parts = List.of("p0", "p1", "p2", "p3", "p4");
        int round = 0;
        for (Fault fault : Fault.values()) {
            // held = -1: no lane is open; else that partition's flush is in flight beside the bundle
            for (int held = -1; held < parts.size(); held++) {
                String where = fault + ", bundle waiting on " + (held < 0 ? "nothing" : parts.get(held));
                String q = "fault" + round++;
                FusingWriter fusing = fusing(1000);
                PushEngine engine = new PushEngine(fusing, store);
                int base = gate.writes.get();
                CompletableFuture<List<PushVerdict>> single = null;
                if (held >= 0) {
                    gate.closeNext();
                    single = engine.push(List.of(cmd(q, parts.get(held), "held"))).subscribeAsCompletionStage();
                    await(() -> gate.writes.get() == base + 1);
                }
                int bundleWrite = base + (held >= 0 ? 2 : 1);
                switch (fault) {
                    case FAILS -> gate.failWrite = bundleWrite;
                    case THROWS -> {
                        gate.throwWrite = bundleWrite;
                        gate.thrown = new IllegalStateException("writer broke");
                    }
                    case THROWS_ERROR -> {
                        gate.throwWrite = bundleWrite;
                        gate.thrown = new StackOverflowError("writer overflowed");
                    }
                }
                List<PushCommand> req = new ArrayList<>();
                for (String p : parts) {
                    req.add(cmd(q, p, "b-" + p));
                }
                CompletableFuture<List<PushVerdict>> bundle = engine.push(req).subscribeAsCompletionStage();
                assertNotNull(failure(bundle), where + ": the bundle fails, without waiting for any lane");
                if (single != null) {
                    gate.open();
                    assertEquals(PushStatus.QUEUED, single.orTimeout(30, TimeUnit.SECONDS).join().get(0).status(), where);
                }
                gate.failWrite = -1;
                gate.throwWrite = -1;
                for (String p : parts) {
                    CompletableFuture<List<PushVerdict>> after = engine.push(List.of(cmd(q, p, "after")))
                            .subscribeAsCompletionStage();
                    timer.fire(LINGER);
                    assertNull(failure(after), where + ": " + p + " answers again");
                    assertEquals(PushStatus.QUEUED, after.join().get(0).status(), where + ": " + p);
                }
                assertEquals(0, fusing.openLanes(), where + ": no lane left taken");
            }
        }
    }

    @Test
    void aBundleOverTwentyThousandPartitionsSucceedsAndLeavesEveryLaneFree() {
        FusingWriter fusing = fusing(1000);
        PushEngine engine = new PushEngine(fusing, store);
        List<PushCommand> req = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            req.add(cmd("wide", "p" + i, "t" + i));
        }
        // one transaction settling 20,000 segments: ~30 s on PostgreSQL 15 in psql, minutes on a loaded machine
        List<PushVerdict> got = engine.push(req).await().atMost(Duration.ofMinutes(10));
        assertEquals(20_000, got.size());
        for (PushVerdict v : got) {
            assertEquals(PushStatus.QUEUED, v.status());
        }
        assertEquals(0, fusing.openLanes(), "a bundle takes no lane");
        assertEquals(PushStatus.DUPLICATE, engine.push(List.of(cmd("wide", "p19999", "t19999"))).await().atMost(WAIT)
                .get(0).status());
        assertEquals(20_000, rows("messages"));
    }

    // ------------------------------------------------------------------------------ pipeline

    @Test
    void withDepthTwoASecondFlushIsSentWhileTheFirstIsInFlightAndLaterArrivalsWaitForASlot() {
        FusingWriter fusing = fusing(1000, 2);
        PushEngine engine = new PushEngine(fusing, store);
        long before = store.calls();
        List<CompletableFuture<List<PushVerdict>>> held = twoFlushesHeld(engine, "q", "a", "b");
        CompletableFuture<List<PushVerdict>> a = held.get(0);
        CompletableFuture<List<PushVerdict>> b = held.get(1);
        assertEquals(2, gate.writes.get(), "a free slot: b went at once, behind a's flush");
        List<CompletableFuture<List<PushVerdict>>> rest = submit(engine,
                List.of(List.of(cmd("q", "p", "c")), List.of(cmd("q", "p", "a")), List.of(cmd("q", "p", "d"))));
        await(() -> fusing.submissions() == 5);
        assertEquals(2, gate.writes.get(), "both slots taken: c, a and d wait");
        assertEquals(0, timer.delays.size(), "a lane with a flush in flight never lingers");
        gate.open(2); // b reaches the database first: the store, not arrival, orders the flushes
        assertEquals(PushStatus.QUEUED, b.orTimeout(30, TimeUnit.SECONDS).join().get(0).status());
        List<List<PushVerdict>> got = all(rest);
        assertEquals(3, gate.writes.get(), "c, a and d fused into the slot b freed");
        assertFalse(a.isDone(), "a's flush is still held");
        assertEquals(PushStatus.QUEUED, got.get(1).get(0).status(), "the second a committed first: it is the original");
        gate.open(1);
        PushVerdict first = a.orTimeout(30, TimeUnit.SECONDS).join().get(0);
        assertEquals(PushStatus.DUPLICATE, first.status(), "a's held flush probed after the other a committed");
        assertEquals(got.get(1).get(0).messageId(), first.messageId());
        assertEquals(got.get(1).get(0).offset(), first.offset());
        assertEquals(3, store.calls() - before);
        assertEquals(4, rows("messages"));
        await(() -> fusing.openLanes() == 0);
    }

    @Test
    void withDepthTwoTheNextFlushWaitsForThePartitionsRowLockAtTheDatabase() {
        new PushEngine(store, DedupCache.DISABLED).push(List.of(cmd("q", "p", "made"))).await().atMost(WAIT);
        for (int depth = 1; depth <= 2; depth++) {
            FusingWriter fusing = fusing(1000, depth);
            PushEngine engine = new PushEngine(fusing, store);
            int base = gate.writes.get();
            io.vertx.mutiny.sqlclient.SqlConnection holder = pool.getConnection().await().atMost(WAIT);
            List<CompletableFuture<List<PushVerdict>>> f;
            try {
                holder.query("BEGIN").execute().await().atMost(WAIT);
                holder.query("SELECT id FROM exactly.partitions FOR UPDATE").execute().await().atMost(WAIT);
                f = submit(engine, List.of(List.of(cmd("q", "p", "x" + depth)), List.of(cmd("q", "p", "y" + depth)),
                        List.of(cmd("q", "p", "z" + depth))));
                int want = depth;
                await(() -> waitingForALock() == want);
                assertEquals(depth, gate.writes.get() - base, "depth " + depth + ": flushes sent");
                assertEquals(depth, waitingForALock(), "depth " + depth + ": every flush in flight waits at the database");
            } finally {
                holder.query("COMMIT").execute().await().atMost(WAIT);
                holder.close().await().atMost(WAIT);
            }
            for (List<PushVerdict> v : all(f)) {
                assertEquals(PushStatus.QUEUED, v.get(0).status());
            }
        }
        assertEquals(7, rows("messages"));
    }

    private long waitingForALock() {
        return pool.query("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")
                .execute().await().atMost(WAIT).iterator().next().getLong(0);
    }

    @Test
    void aFailedFlushWhileTheNextIsInFlightFailsOnlyItsOwnRequestsAndFreesItsSlot() {
        FusingWriter fusing = fusing(1000, 2);
        PushEngine engine = new PushEngine(fusing, store);
        gate.failWrite = 1;
        List<CompletableFuture<List<PushVerdict>>> held = twoFlushesHeld(engine, "q", "a", "b");
        CompletableFuture<List<PushVerdict>> a = held.get(0);
        CompletableFuture<List<PushVerdict>> b = held.get(1);
        assertEquals(2, gate.writes.get());
        gate.open(1);
        Throwable t = failure(a);
        assertNotNull(t, "the failed flush answers its request");
        assertEquals("database away", t.getMessage());
        assertFalse(b.isDone(), "the flush behind it is still in flight");
        CompletableFuture<List<PushVerdict>> c = engine.push(List.of(cmd("q", "p", "c"))).subscribeAsCompletionStage();
        assertEquals(PushStatus.QUEUED, c.orTimeout(30, TimeUnit.SECONDS).join().get(0).status(),
                "the failed flush's slot was freed: c went beside b's flush");
        assertEquals(3, gate.writes.get());
        gate.open(2);
        assertEquals(PushStatus.QUEUED, b.orTimeout(30, TimeUnit.SECONDS).join().get(0).status());
        await(() -> fusing.openLanes() == 0);
        assertEquals(PushStatus.QUEUED, engine.push(List.of(cmd("q", "p", "a"))).await().atMost(WAIT).get(0).status(),
                "a was not written");
        assertEquals(3, rows("messages"));
    }

    @Test
    void withDepthTwoTwoStalledFlushesAndTheRequestsBehindThemAreAnsweredByTheirDeadline() {
        FusingWriter fusing = fusing(1000, 2);
        PushEngine engine = new PushEngine(fusing, store);
        long start = System.nanoTime();
        long deadline = start + TimeUnit.MILLISECONDS.toNanos(800);
        List<CompletableFuture<List<PushVerdict>>> f = new ArrayList<>();
        RequestDeadline.within(deadline, () -> {
            gate.closeNext();
            f.add(engine.push(List.of(cmd("q", "p", "a"))).subscribeAsCompletionStage());
            gate.closeNext();
            f.add(engine.push(List.of(cmd("q", "p", "b"))).subscribeAsCompletionStage());
            f.addAll(submit(engine, List.of(List.of(cmd("q", "p", "c")), List.of(cmd("q", "p", "d")))));
            return null;
        });
        for (CompletableFuture<List<PushVerdict>> x : f) {
            Throwable t = failure(x);
            assertTrue(t instanceof DeadlineExceededException, String.valueOf(t));
        }
        long took = (System.nanoTime() - start) / 1_000_000;
        assertTrue(took < 800, "answered after " + took + " ms, past the deadline");
        await(() -> fusing.openLanes() == 0);
        assertEquals(2, gate.writes.get(), "c and d, late when a slot was free again, were not sent");
        gate.open(1);
        gate.open(2);
        assertEquals(PushStatus.QUEUED, engine.push(List.of(cmd("q", "p", "e"))).await().atMost(WAIT).get(0).status(),
                "the lane works again");
        assertEquals(1, rows("messages"));
    }

    @Test
    void withAZeroWindowTheSecondCallKeepsItsFlushsSlot() {
        new QueueRepository(pool).write("nodedup", Map.of(QueueOption.DEDUP_WINDOW_SECONDS, 0), false).await().atMost(WAIT);
        FusingWriter fusing = fusing(1000, 2);
        PushEngine engine = new PushEngine(fusing, store);
        List<CompletableFuture<List<PushVerdict>>> held = twoFlushesHeld(engine, "nodedup", "first", "x");
        CompletableFuture<List<PushVerdict>> first = held.get(0);
        CompletableFuture<List<PushVerdict>> x = held.get(1);
        List<CompletableFuture<List<PushVerdict>>> same = submit(engine,
                List.of(List.of(cmd("nodedup", "p", "same")), List.of(cmd("nodedup", "p", "same"))));
        await(() -> fusing.submissions() == 4);
        gate.closeNext(); // the fused flush of the two "same"
        gate.open(2);
        x.orTimeout(30, TimeUnit.SECONDS).join();
        await(() -> gate.writes.get() == 3);
        CompletableFuture<List<PushVerdict>> y = engine.push(List.of(cmd("nodedup", "p", "y"))).subscribeAsCompletionStage();
        gate.closeNext(); // the followers' second call
        gate.open(3);
        await(() -> gate.writes.get() == 4);
        assertEquals(4, gate.writes.get(), "the second call runs in its flush's slot: y still waits");
        assertFalse(y.isDone());
        gate.open(4);
        for (List<PushVerdict> v : all(same)) {
            assertEquals(PushStatus.QUEUED, v.get(0).status(), "no deduplication: followers are stored");
        }
        assertEquals(PushStatus.QUEUED, y.orTimeout(30, TimeUnit.SECONDS).join().get(0).status());
        assertEquals(5, gate.writes.get());
        gate.open(1);
        assertEquals(PushStatus.QUEUED, first.orTimeout(30, TimeUnit.SECONDS).join().get(0).status());
        assertEquals(5, rows("messages"));
        await(() -> fusing.openLanes() == 0);
    }

    /** Counts the writes in flight through it and keeps the most seen at once. */
    static final class InFlight implements SegmentWriter {
        final SegmentWriter inner;
        final java.util.concurrent.atomic.AtomicInteger now = new java.util.concurrent.atomic.AtomicInteger();
        final java.util.concurrent.atomic.AtomicInteger most = new java.util.concurrent.atomic.AtomicInteger();

        InFlight(SegmentWriter inner) {
            this.inner = inner;
        }

        @Override
        public Uni<List<SegmentOutcome>> write(List<Segment> segments) {
            return Uni.createFrom().deferred(() -> {
                most.accumulateAndGet(now.incrementAndGet(), Math::max);
                return inner.write(segments);
            }).onTermination().invoke(now::decrementAndGet);
        }
    }

    @Test
    void manyClientsPushingTheSameKeysIntoOnePartitionWithDepthTwoStoreEachKeyOnceWithConsistentVerdicts() throws Exception {
        ScheduledLingerTimer real = new ScheduledLingerTimer();
        try {
            WarmDedupCache cache = new WarmDedupCache(new TxnHashRepository(pool), CacheDefaults.settings(64), Ticker.SYSTEM);
            InFlight counted = new InFlight(new DirectWriter(store, cache));
            FusingWriter fusing = new FusingWriter(counted, FusionSettings.of(Duration.ofMillis(1), 1000, 8 << 20, 2), real);
            PushEngine server = new PushEngine(fusing, store);
            int clients = 24;
            int perClient = 40;
            int keys = 150;
            List<PushVerdict> verdicts = new CopyOnWriteArrayList<>();
            ExecutorService threads = Executors.newFixedThreadPool(clients);
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int client = c;
                done.add(threads.submit(() -> {
                    Random rnd = new Random(100 + client);
                    for (int i = 0; i < perClient; i++) {
                        List<PushCommand> req = new ArrayList<>();
                        int n = 1 + rnd.nextInt(5);
                        for (int j = 0; j < n; j++) {
                            req.add(cmd("hot", "p", "k" + rnd.nextInt(keys)));
                        }
                        verdicts.addAll(server.push(req).await().atMost(WAIT));
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
            threads.shutdown();
            assertEquals(2, counted.most.get(), "two flushes of the partition were in flight at once, never more");
            Map<String, List<PushVerdict>> byKey = new HashMap<>();
            for (PushVerdict v : verdicts) {
                byKey.computeIfAbsent(v.transactionId(), k -> new ArrayList<>()).add(v);
            }
            Map<Long, String> offsets = new HashMap<>();
            for (Map.Entry<String, List<PushVerdict>> e : byKey.entrySet()) {
                List<PushVerdict> vs = e.getValue();
                long queued = vs.stream().filter(v -> v.status() == PushStatus.QUEUED).count();
                assertEquals(1, queued, e.getKey() + ": stored exactly once");
                PushVerdict original = vs.stream().filter(v -> v.status() == PushStatus.QUEUED).findFirst().orElseThrow();
                for (PushVerdict v : vs) {
                    assertEquals(original.messageId(), v.messageId(), e.getKey() + ": every verdict names the original");
                    assertEquals(original.offset(), v.offset(), e.getKey() + ": every verdict names the original's offset");
                }
                assertNull(offsets.put(original.offset(), e.getKey()), "one key per offset");
            }
            assertEquals(byKey.size(), rows("messages"), "stored rows = distinct keys");
            assertEquals(byKey.size(), rows("txn_hashes"));
            for (long o = 0; o < byKey.size(); o++) {
                assertNotNull(offsets.get(o), "offsets 0.." + (byKey.size() - 1) + " without a gap: " + o);
            }
            // a lane whose last flush fused several requests lingers idle for a second before it is removed
            await(() -> fusing.openLanes() == 0);
        } finally {
            real.close();
        }
    }

    // ------------------------------------------------------------------------------ concurrency

    @Test
    void sixteenClientsTwoInstancesOverlappingIdsAndBundlesStayExact() throws Exception {
        ScheduledLingerTimer real = new ScheduledLingerTimer();
        try {
            Pool other = db.pool(8);
            WarmDedupCache cache = new WarmDedupCache(new TxnHashRepository(pool), CacheDefaults.settings(64), Ticker.SYSTEM);
            PushEngine server = new PushEngine(new FusingWriter(new DirectWriter(store, cache),
                    FusionSettings.of(Duration.ofMillis(1), 1000, 8 << 20, 2), real), store);
            PushEngine lambda = new PushEngine(new PushRepository(other), DedupCache.DISABLED);
            int clients = 16;
            int perClient = 40;
            ConcurrentHashMap<String, UUID> idByKey = new ConcurrentHashMap<>();
            ConcurrentHashMap<String, Boolean> mismatch = new ConcurrentHashMap<>();
            AtomicBoolean failed = new AtomicBoolean();
            ExecutorService pool16 = Executors.newFixedThreadPool(clients);
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int client = c;
                done.add(pool16.submit(() -> {
                    Random rnd = new Random(client);
                    PushEngine engine = client % 2 == 0 ? server : lambda;
                    for (int i = 0; i < perClient; i++) {
                        List<PushCommand> req = new ArrayList<>();
                        int n = rnd.nextInt(4) == 0 ? 2 + rnd.nextInt(3) : 1;
                        String part = "p" + rnd.nextInt(3);
                        for (int j = 0; j < n; j++) {
                            String p = rnd.nextBoolean() ? part : "p" + rnd.nextInt(3);
                            req.add(cmd("conc", p, "id" + rnd.nextInt(60)));
                        }
                        try {
                            for (PushVerdict v : engine.push(req).await().atMost(WAIT)) {
                                UUID prev = idByKey.putIfAbsent(v.partition() + "/" + v.transactionId(), v.messageId());
                                if (prev != null && !prev.equals(v.messageId())) {
                                    mismatch.put(v.partition() + "/" + v.transactionId(), true);
                                }
                            }
                        } catch (RuntimeException e) {
                            failed.set(true);
                            throw e;
                        }
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
            pool16.shutdown();
            assertFalse(failed.get());
            assertTrue(mismatch.isEmpty(), "one messageId per id: " + mismatch.keySet());
            assertEquals(idByKey.size(), rows("messages"), "stored rows = distinct ids");
            assertEquals(idByKey.size(), rows("txn_hashes"));
            assertNotEquals(0, cache.stats().narrowedProbes() + cache.stats().fullProbes());
        } finally {
            real.close();
        }
    }

    // ------------------------------------------------------------------------------ settled, then durable

    /**
     * Settles through the real store, then holds each flush's durability (its WAL flush) until the
     * test lets it go, or fails it.
     */
    static final class HeldDurability implements SegmentWriter {
        final SegmentWriter inner;
        final java.util.concurrent.atomic.AtomicInteger settles = new java.util.concurrent.atomic.AtomicInteger();
        final Map<Integer, CompletableFuture<Void>> durable = new ConcurrentHashMap<>();

        HeldDurability(SegmentWriter inner) {
            this.inner = inner;
        }

        @Override
        public Uni<List<SegmentOutcome>> write(List<Segment> segments) {
            throw new AssertionError("a fused flush settles, then waits for durable()");
        }

        @Override
        public Uni<Settled> writeSettled(List<Segment> segments) {
            return inner.writeSettled(segments).map(settled -> {
                CompletableFuture<Void> held = new CompletableFuture<>();
                durable.put(settles.incrementAndGet(), held);
                return new Settled(settled.outcomes(),
                        settled.durable().chain(() -> Uni.createFrom().completionStage(held)));
            });
        }
    }

    @Test
    void aSettledFlushHandsItsSlotOnAndAnswersItsCallersOnlyOnceDurable() {
        HeldDurability held = new HeldDurability(new DirectWriter(store, DedupCache.DISABLED));
        FusingWriter fusing = new FusingWriter(held, new FusionSettings(LINGER, 1000, 8 << 20, 1), timer);
        PushEngine engine = new PushEngine(fusing, store);
        List<CompletableFuture<List<PushVerdict>>> first = submit(engine, List.of(List.of(cmd("q", "p", "a"))));
        await(() -> held.settles.get() == 1);
        List<CompletableFuture<List<PushVerdict>>> second = submit(engine, List.of(List.of(cmd("q", "p", "b"))));
        // one slot: the second flush starts although the first is not durable yet
        await(() -> held.settles.get() == 2);
        assertFalse(first.get(0).isDone(), "the first flush's caller waits for its durability");
        assertFalse(second.get(0).isDone());
        held.durable.get(2).complete(null);
        assertEquals(PushStatus.QUEUED, all(second).get(0).get(0).status(), "each flush is answered when durable");
        assertFalse(first.get(0).isDone());
        held.durable.get(1).completeExceptionally(new StoreUnavailableException("the WAL flush failed"));
        CompletableFuture<List<PushVerdict>> failed = first.get(0);
        java.util.concurrent.ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(
                java.util.concurrent.ExecutionException.class, () -> failed.get(30, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof StoreUnavailableException, "a failed flush fails its callers: " + e.getCause());
        assertEquals(2, rows("messages"), "both were committed; the first's caller learns it from its retry");
        await(() -> fusing.openLanes() == 0);
    }
}
