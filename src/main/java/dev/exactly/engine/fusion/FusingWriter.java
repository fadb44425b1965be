package dev.exactly.engine.fusion;

import dev.exactly.db.BorrowedConnections;
import dev.exactly.db.DeadlineExceededException;
import dev.exactly.db.LaneCycleProbe;
import dev.exactly.db.RequestDeadline;
import dev.exactly.engine.PartitionKey;
import dev.exactly.engine.PushItem;
import dev.exactly.engine.Segment;
import dev.exactly.engine.SegmentOutcome;
import dev.exactly.engine.SegmentWriter;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.UniEmitter;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import org.jboss.logging.Logger;

/**
 * Layer 2 of deduplication, server mode only: fuses concurrent pushes to one partition into one
 * segment and one SQL call, with a bounded number of flushes in flight per partition.
 * Deduplication has three layers and one authority: layer 1 (one request body) and layer 2 (this fused segment) each keep the first
 * occurrence of a transaction hash and make later ones followers that inherit the leader's final
 * verdict; only layer 3, the store's probe under the partition's row lock, decides whether a hash
 * was already stored. Layers 1 and 2 only save SQL work. (The layering follows the Queen message
 * queue's documentation, "Deduplication", section "Three layers, one authority".)
 *
 * <h2>Lanes</h2>
 * Each partition has a lane: at most {@link FusionSettings#pipeline()} fused writes to the
 * partition are in flight from this instance at once (1: strictly one after another). A request
 * whose leaders all go to one partition joins the lane's pending list. Arrivals while every slot
 * is taken are flushed together, without linger, the moment a flush completes. An arrival at a lane
 * with a flush in flight and a free slot is flushed at once (below, "Pipeline"). An idle lane
 * flushes at once when it holds as many pending requests as its last flush carried, or when the
 * pending items or bytes reach the flush size; otherwise it lingers for the rest, at most the
 * linger. So a lane whose last flush carried a single request (pushes arriving one at a time)
 * flushes every arrival at once and never lingers: nothing is waiting behind it. Only a lane that
 * just fused k ≥ 2 requests waits, and only until k have arrived again (the clients it answered
 * sending their next pushes) or the linger ends; a flush that carried fewer lowers the next wait's
 * target. An idle lane is removed from the map (so lanes do not accumulate over partition names),
 * a lingering one only after it stayed idle for a second. Lanes are keyed by partition and by the
 * spreadPartitions the segments were routed with, so a flush never mixes two routings.
 *
 * <h2>Settled, then durable</h2>
 * A flush holds its slot until the store has settled it ({@link SegmentWriter#writeSettled}): its
 * transaction has committed and the partition's row lock is free, but the WAL may not be flushed
 * yet (sql/R__push.sql, "Commit before the WAL flush"). The slot passes to the next flush at that
 * moment, and the flush's callers are answered when its outcome is durable; a failed flush of the
 * WAL fails them (their outcome is unknown, as after a lost answer, and their retries are answered
 * exactly). So with one slot the lock works on the next flush while the last one's WAL is flushed.
 *
 * <h2>Pipeline</h2>
 * With one flush in flight, the partition's row lock is idle between two flushes for the answer's
 * way back, its processing here, and the next flush's way to the database. With a depth of 2 the
 * next flush is sent while the one ahead is still in flight: it reaches the database and waits
 * for the row lock, which passes to it when the one ahead commits. Every guarantee holds because
 * the store, not this class, orders the two:
 * <ul>
 * <li><b>The probe under the lock stays the authority.</b> Two flushes in flight are two
 * transactions on two connections; whichever is granted the row lock second probes with a snapshot
 * taken after the first committed (sql/R__push.sql, "Why the probe under the lock is exact"), so
 * a hash both carry is stored once and the second answers it as a duplicate of the first's row.
 * Which of the two goes first is the database's choice (the pool may hand the second its
 * connection first), as between two instances; concurrent requests have no order to keep.</li>
 * <li><b>Followers.</b> Layer 2 works inside one flush only: an item whose hash is in the other
 * in-flight flush is a leader in its own and is settled by the store as above, never by
 * inheritance from a flush whose verdict is not known yet.</li>
 * <li><b>Window 0.</b> A flush's second call (followers of a queue without deduplication) runs in
 * the same slot, so a lane never has more SQL calls in flight than its depth; the other flush may
 * commit between the two calls, which moves offsets, not verdicts (every item of such a queue is
 * stored).</li>
 * <li><b>The dedup cache.</b> The watermark a flush sends (p_verified) is the cache's verifiedUpto
 * when the flush is sent, and verifiedUpto only ever covers committed offsets (commit notices and
 * reads of committed rows). A flush in flight has committed nothing, and the offsets it will take
 * are allocated under the lock above every committed one, so above the watermark; the store probes
 * every offset above the watermark under the lock. So no watermark vouches for an offset another
 * in-flight flush could take. The two commits' notices (WarmDedupCache#committed) may arrive
 * out of order, on two connections: the later commit's notice, first, is held by the cache as an
 * early notice (it keeps vouching for its watermark) and applied after the earlier's, which fills
 * the gap; during a load both are buffered and replayed sorted by their previous watermark. Where
 * the entry is disqualified meanwhile (more early notices than it holds: a slot freed by the later
 * flush starts another, which may commit and answer before the earlier notice comes back on a
 * busy machine), the earlier notice changes nothing
 * (stale) or is skipped as a late one (its rows are at or below the healing read's snapshot,
 * taken after the later commit). The worst cost is whole-window probes until a delta read heals
 * the entry: never a verdict, never a full rebuild.</li>
 * <li><b>Slots.</b> Each flush holds its slot from its start to its own end (success, failure,
 * deadline, the writer throwing), released exactly once; a failed flush frees its slot and fails
 * only its own requests, while the other flush in flight goes on. Each flush in flight holds one
 * pooled connection, so a busy partition takes up to its depth of the pool.</li>
 * </ul>
 *
 * <h2>Inside a flush</h2>
 * Duplicates are settled first-wins by the 16-byte transaction hash, the same identity the store
 * compares: a later item with a hash already in the flush becomes a follower and inherits its
 * leader's final result (as a duplicate carrying the leader's message id and offset, which is the
 * stored original's when the leader itself turned out a duplicate), and the payload digest of the
 * message that id stands for, so that its own payload is compared with the right one. Items without a transactionId
 * never follow. If the store reports the queue's window as 0 (no deduplication), followers were
 * not duplicates after all: they are sent in a second call, within the same slot of the lane, and
 * get the store's own verdicts. Each request gets back an outcome for exactly its items.
 *
 * <h2>Requests spanning several partitions</h2>
 * They are not fused and take no lane: they go straight to the unfused writer, one bundle, one
 * round trip and one transaction (all their partitions commit together), exactly as in the
 * stateless shape. The store's row locks order them against everything else (ascending partition
 * id); a fused flush of one of their partitions may be in flight at the same time, which only
 * means the cache may see those two commits out of order (it then re-reads the gap: it can cost
 * a narrowed probe, never a verdict). A request spread over many partitions of a hot queue thus
 * never waits behind lanes it does not need.
 *
 * <h2>Deadlines</h2>
 * Each request keeps its deadline ({@link RequestDeadline}, read when it is submitted). A flush
 * runs under the earliest deadline of the requests it carries, so its store call is bounded by it
 * (and the flush by it again here, whatever the store does): when it runs out, the flush fails,
 * its slot of the lane is released and every request it carried is answered with
 * {@link DeadlineExceededException}. A request whose deadline passes while it waits for its lane
 * is answered so when its turn comes and is not written (it would be written after its client was
 * told it failed).
 *
 * <p>Cancellation of a caller's Uni never strands a lane: lane work runs to completion and a
 * cancelled caller's result is dropped. Thread-safe; each lane has its own monitor.
 */
public final class FusingWriter implements SegmentWriter {

    private static final Logger LOG = Logger.getLogger(FusingWriter.class);

    /** How long a lingering lane may stay idle before it forgets its linger and is removed. */
    static final long IDLE_CHECK_NANOS = 1_000_000_000L;

    private final SegmentWriter direct;
    private final FusionSettings settings;
    private final LingerTimer timer;
    private final ConcurrentHashMap<LaneKey, Lane> lanes = new ConcurrentHashMap<>();

    private final LongAdder flushes = new LongAdder();
    private final LongAdder submissions = new LongAdder();
    private final LongAdder followers = new LongAdder();
    private final LongAdder bundles = new LongAdder();

    /**
     * @param direct   the unfused writer (cache bounds, one bundle per call, cache notices)
     * @param settings linger and flush size
     * @param timer    runs lingers
     */
    public FusingWriter(SegmentWriter direct, FusionSettings settings, LingerTimer timer) {
        this.direct = direct;
        this.settings = settings;
        this.timer = timer;
    }

    /** One request's share of a flush. */
    private static final class Submission {
        final List<PushItem> items;
        final long bytes;
        final BiConsumer<SegmentOutcome, Throwable> done;
        /** The request's deadline ({@link RequestDeadline}), or NONE. */
        final long deadline;

        Submission(List<PushItem> items, BiConsumer<SegmentOutcome, Throwable> done, long deadline) {
            this.items = items;
            this.deadline = deadline;
            long b = 0;
            for (PushItem it : items) {
                b += it.command().payload().length;
            }
            this.bytes = b;
            this.done = done;
        }
    }

    /** A lane's identity: the partition, and the spreadPartitions its segments were routed with. */
    private record LaneKey(PartitionKey partition, int spread) {
    }

    /** A partition's lane: its pending requests and its flushes in flight. Guarded by its own monitor. */
    private static final class Lane {
        final LaneKey key;
        final ArrayDeque<Submission> pending = new ArrayDeque<>();
        int pendingItems;
        long pendingBytes;
        /** Flushes of this lane in flight (at most the pipeline depth); each holds one pooled connection. */
        int inFlight;
        boolean timerArmed;
        /** Requests the last flush carried (0 before the first): an idle lane waits for as many. */
        int lastFused;
        boolean retired;
        boolean idleCheckArmed;

        Lane(LaneKey key) {
            this.key = key;
        }

        /** True when the last flush fused several requests: an idle arrival may wait for the others. */
        boolean lingering() {
            return lastFused >= 2;
        }
    }

    @Override
    public Uni<List<SegmentOutcome>> write(List<Segment> segments) {
        if (segments.size() == 1) {
            Segment s = segments.get(0);
            return Uni.createFrom().<SegmentOutcome>emitter(em -> submit(s, complete(em))).map(List::of);
        }
        bundles.increment();
        return direct.write(segments);
    }

    private static <T> BiConsumer<T, Throwable> complete(UniEmitter<? super T> em) {
        return (item, err) -> {
            if (err != null) {
                em.fail(err);
            } else {
                em.complete(item);
            }
        };
    }

    // ------------------------------------------------------------------------------ single partition

    private void submit(Segment s, BiConsumer<SegmentOutcome, Throwable> done) {
        Submission sub = new Submission(s.items(), done, RequestDeadline.current());
        submissions.increment();
        Runnable action;
        while (true) {
            Lane lane = lanes.computeIfAbsent(new LaneKey(s.partition(), s.spread()), Lane::new);
            synchronized (lane) {
                if (lane.retired) {
                    continue;
                }
                lane.pending.add(sub);
                lane.pendingItems += sub.items.size();
                lane.pendingBytes += sub.bytes;
                action = afterArrival(lane);
            }
            break;
        }
        if (action != null) {
            action.run();
        }
    }

    /** Decides what an arrival triggers. Caller holds the lane's lock; the action runs after. */
    private Runnable afterArrival(Lane lane) {
        if (lane.inFlight >= settings.pipeline()) {
            return null; // flushed when a write in flight completes
        }
        if (lane.inFlight > 0) {
            // a flush is ahead and a slot is free: go now and wait for the row lock at the database,
            // so the lock passes to this flush the moment the one ahead commits
            return start(lane);
        }
        boolean full = lane.pendingItems >= settings.maxItems() || lane.pendingBytes >= settings.maxBytes();
        // nothing more is expected once as many requests wait as the last flush carried (one, for
        // a lane whose pushes arrive one at a time): flush at once rather than linger for nobody
        boolean allBack = lane.pending.size() >= lane.lastFused;
        if (full || allBack || settings.lingerNanos() == 0) {
            return start(lane);
        }
        if (lane.timerArmed) {
            return null;
        }
        lane.timerArmed = true;
        return () -> {
            try {
                timer.schedule(settings.lingerNanos(), () -> lingerEnded(lane));
            } catch (RuntimeException shutDown) {
                lingerEnded(lane);
            }
        };
    }

    private void lingerEnded(Lane lane) {
        List<Submission> batch = null;
        Runnable then = null;
        synchronized (lane) {
            lane.timerArmed = false;
            if (lane.inFlight < settings.pipeline() && !lane.pending.isEmpty()) {
                lane.inFlight++;
                batch = take(lane);
            } else {
                then = retireIfIdle(lane);
            }
        }
        if (batch != null) {
            flush(lane, batch);
        } else if (then != null) {
            then.run();
        }
    }

    /** A lingering lane that stayed idle since its check was armed forgets its linger and retires. */
    private void idleCheck(Lane lane) {
        synchronized (lane) {
            lane.idleCheckArmed = false;
            if (lane.inFlight == 0 && !lane.timerArmed && lane.pending.isEmpty()) {
                lane.lastFused = 0;
                retireIfIdle(lane);
            }
        }
    }

    /**
     * Takes a slot of the lane and its pending requests up to the flush size; the returned action
     * sends them. Caller holds the lane's lock and has checked that a slot is free.
     */
    private Runnable start(Lane lane) {
        lane.inFlight++;
        List<Submission> batch = take(lane);
        return () -> flush(lane, batch);
    }

    /** Takes pending requests up to the flush size (at least one). Caller holds the lane's lock. */
    private List<Submission> take(Lane lane) {
        List<Submission> batch = new ArrayList<>();
        int items = 0;
        long bytes = 0;
        while (!lane.pending.isEmpty()) {
            Submission next = lane.pending.peek();
            if (!batch.isEmpty() && (items + next.items.size() > settings.maxItems()
                    || bytes + next.bytes > settings.maxBytes())) {
                break;
            }
            lane.pending.poll();
            items += next.items.size();
            bytes += next.bytes;
            batch.add(next);
        }
        lane.pendingItems -= items;
        lane.pendingBytes -= bytes;
        return batch;
    }

    private void flush(Lane lane, List<Submission> taken) {
        if (LaneCycleProbe.ON) {
            LaneCycleProbe.mark(LaneCycleProbe.FLUSH);
        }
        // requests whose deadline passed while they waited are answered, not written
        long now = System.nanoTime();
        long deadline = RequestDeadline.NONE;
        List<Submission> batch = new ArrayList<>(taken.size());
        List<Submission> late = new ArrayList<>();
        for (Submission sub : taken) {
            if (sub.deadline != RequestDeadline.NONE && sub.deadline - now
                    <= BorrowedConnections.ANSWER_RESERVE.toNanos() + BorrowedConnections.LEAST_WORK.toNanos()) {
                late.add(sub);
            } else {
                batch.add(sub);
                deadline = Math.min(deadline, sub.deadline);
            }
        }
        if (!late.isEmpty()) {
            failAll(late, new DeadlineExceededException("the request's deadline came while its push waited for its "
                    + "partition's previous write; it was not written"));
        }
        if (batch.isEmpty()) {
            finish(lane, 0, () -> { });
            return;
        }
        flushes.increment();
        Fused fused;
        try {
            fused = Fused.of(batch);
        } catch (Throwable t) {
            finish(lane, batch.size(), () -> failAll(batch, t));
            return;
        }
        if (LaneCycleProbe.ON) {
            LaneCycleProbe.mark(LaneCycleProbe.GROUPED);
        }
        followers.add(fused.followerCount);
        long flushDeadline = deadline;
        send(List.of(new Segment(lane.key.partition(), fused.leaders, lane.key.spread())), flushDeadline, (settled, err) -> {
            if (LaneCycleProbe.ON) {
                LaneCycleProbe.mark(LaneCycleProbe.SETTLED);
            }
            if (err != null) {
                finish(lane, batch.size(), () -> failAll(batch, err));
                return;
            }
            SegmentOutcome o = settled.outcomes().get(0);
            if (o.windowSeconds() == 0 && fused.followerCount > 0) {
                // no deduplication on this queue: followers are items of their own, not duplicates
                flushes.increment();
                send(List.of(new Segment(lane.key.partition(), fused.followerItems(), lane.key.spread())), flushDeadline,
                        (again, err2) -> finish(lane, batch.size(),
                        () -> {
                            if (err2 != null) {
                                failAll(batch, err2);
                            } else {
                                whenDurable(Uni.combine().all().unis(settled.durable(), again.durable()).discardItems(),
                                        batch, () -> fused.distribute(o, again.outcomes().get(0)));
                            }
                        }));
                return;
            }
            // the partition's lock is free once the store settled: the next flush starts now, and
            // this one's callers are answered when its rows are durable
            finish(lane, batch.size(), () -> whenDurable(settled.durable(), batch, () -> fused.distribute(o, null)));
        });
    }

    /**
     * Answers a flush's callers once its outcome is durable ({@link SegmentWriter.Settled#durable()}),
     * or fails them all when that fails (their outcome is then unknown; their retries are answered
     * exactly).
     */
    private static void whenDurable(Uni<Void> durable, List<Submission> batch, Runnable deliver) {
        try {
            durable.subscribe().with(v -> {
                try {
                    deliver.run();
                } catch (Throwable t) {
                    LOG.errorf(t, "fusion: delivering a flush's results failed");
                }
            }, err -> failAll(batch, err));
        } catch (Throwable t) {
            failAll(batch, t);
        }
    }

    private static void failAll(List<Submission> batch, Throwable err) {
        for (Submission s : batch) {
            try {
                s.done.accept(null, err);
            } catch (Throwable t) {
                LOG.errorf(t, "fusion: a caller's failure callback failed");
            }
        }
    }

    /** Releases the lane, starts what it grants next, then delivers this flush's results. */
    private void finish(Lane lane, int fusedRequests, Runnable deliver) {
        Runnable next;
        synchronized (lane) {
            lane.lastFused = fusedRequests;
            next = release(lane);
        }
        if (next != null) {
            if (LaneCycleProbe.ON) {
                LaneCycleProbe.mark(LaneCycleProbe.HANDOVER);
            }
            runGuarded(next);
        }
        try {
            deliver.run();
        } catch (Throwable t) {
            LOG.errorf(t, "fusion: delivering a flush's results failed");
        }
    }

    /**
     * Runs a lane hand-over (the next flush). A flush answers its own callers on failure; a
     * throwable escaping it must not stop the caller.
     */
    private static void runGuarded(Runnable r) {
        try {
            r.run();
        } catch (Throwable t) {
            LOG.errorf(t, "fusion: a lane hand-over failed");
        }
    }

    /**
     * Frees a flush's slot and hands the free slots to the pending requests (flushed at once: they
     * already waited). Caller holds the lane's lock; runs the result after.
     */
    private Runnable release(Lane lane) {
        lane.inFlight--;
        if (lane.pending.isEmpty()) {
            return retireIfIdle(lane);
        }
        List<Runnable> next = new ArrayList<>(1);
        while (lane.inFlight < settings.pipeline() && !lane.pending.isEmpty()) {
            next.add(start(lane));
        }
        if (next.size() == 1) {
            return next.get(0);
        }
        return () -> next.forEach(FusingWriter::runGuarded);
    }

    /**
     * Removes an idle lane from the map, unless it lingers (its last flush fused several
     * requests): then it stays, so the next arrival lingers too, until an idle check a second
     * later finds it still idle. Caller holds the lane's lock; runs the result after.
     */
    private Runnable retireIfIdle(Lane lane) {
        if (lane.inFlight > 0 || lane.timerArmed || !lane.pending.isEmpty()) {
            return null;
        }
        if (!lane.lingering()) {
            lane.retired = true;
            lanes.remove(lane.key, lane);
            return null;
        }
        if (lane.idleCheckArmed) {
            return null;
        }
        lane.idleCheckArmed = true;
        return () -> {
            try {
                timer.schedule(IDLE_CHECK_NANOS, () -> idleCheck(lane));
            } catch (RuntimeException shutDown) {
                idleCheck(lane);
            }
        };
    }

    /**
     * Sends segments to the unfused writer, with {@code deadline} as the deadline of its database
     * work and bounded by it here too; {@code then} runs once, with the outcomes or with the
     * failure, also when the writer throws (an {@link Error} included) instead of failing.
     */
    private void send(List<Segment> segments, long deadline, BiConsumer<SegmentWriter.Settled, Throwable> then) {
        AtomicBoolean called = new AtomicBoolean();
        BiConsumer<SegmentWriter.Settled, Throwable> once = (o, err) -> {
            if (called.compareAndSet(false, true)) {
                then.accept(o, err);
            }
        };
        try {
            RequestDeadline.within(deadline, () -> {
                Uni<SegmentWriter.Settled> write = direct.writeSettled(segments);
                if (deadline != RequestDeadline.NONE) {
                    long left = Math.max(1, deadline - System.nanoTime() - BorrowedConnections.ANSWER_RESERVE.toNanos());
                    write = write.ifNoItem().after(Duration.ofNanos(left)).failWith(() -> new DeadlineExceededException(
                            "a fused write did not finish before the deadline of the requests it carried"))
                            .map(settled -> new SegmentWriter.Settled(settled.outcomes(), settled.durable().ifNoItem()
                                    .after(Duration.ofNanos(Math.max(1, deadline - System.nanoTime()
                                            - BorrowedConnections.ANSWER_RESERVE.toNanos())))
                                    .failWith(() -> new DeadlineExceededException("a fused write's WAL flush did not finish "
                                            + "before the deadline of the requests it carried"))));
                }
                return write.subscribe().with(o -> once.accept(o, null), err -> once.accept(null, err));
            });
        } catch (Throwable t) {
            once.accept(null, t);
        }
    }

    // ------------------------------------------------------------------------------ layer 2

    /** 128-bit hash as a map key. */
    private record HashKey(long hi, long lo) {
        static HashKey of(byte[] h) {
            long hi = 0;
            long lo = 0;
            for (int i = 0; i < 8; i++) {
                hi = (hi << 8) | (h[i] & 0xffL);
                lo = (lo << 8) | (h[8 + i] & 0xffL);
            }
            return new HashKey(hi, lo);
        }
    }

    /** A flush's fused segment: leaders first-wins by hash, and where each request's items went. */
    private static final class Fused {
        final List<Submission> batch;
        final List<PushItem> leaders = new ArrayList<>();
        /** Per request, per item: the index of the leader it is or follows. */
        final int[][] leaderOf;
        /** Per request, per item: -1 for a leader; else its index among the followers. */
        final int[][] followerNo;
        final List<PushItem> followerList = new ArrayList<>();
        int followerCount;

        private Fused(List<Submission> batch) {
            this.batch = batch;
            this.leaderOf = new int[batch.size()][];
            this.followerNo = new int[batch.size()][];
        }

        static Fused of(List<Submission> batch) {
            Fused f = new Fused(batch);
            if (batch.size() == 1) {
                // one request: layer 1 already made its items unique
                List<PushItem> items = batch.get(0).items;
                f.leaders.addAll(items);
                f.leaderOf[0] = new int[items.size()];
                f.followerNo[0] = new int[items.size()];
                for (int j = 0; j < items.size(); j++) {
                    f.leaderOf[0][j] = j;
                    f.followerNo[0][j] = -1;
                }
                return f;
            }
            Map<HashKey, Integer> first = new HashMap<>();
            for (int i = 0; i < batch.size(); i++) {
                List<PushItem> items = batch.get(i).items;
                f.leaderOf[i] = new int[items.size()];
                f.followerNo[i] = new int[items.size()];
                for (int j = 0; j < items.size(); j++) {
                    PushItem it = items.get(j);
                    HashKey k = HashKey.of(it.hash());
                    Integer l = first.get(k);
                    if (l != null && it.probe()) {
                        f.leaderOf[i][j] = l;
                        f.followerNo[i][j] = f.followerList.size();
                        f.followerList.add(it);
                        f.followerCount++;
                    } else {
                        f.leaderOf[i][j] = f.leaders.size();
                        f.followerNo[i][j] = -1;
                        if (l == null) {
                            first.put(k, f.leaders.size());
                        }
                        f.leaders.add(it);
                    }
                }
            }
            return f;
        }

        List<PushItem> followerItems() {
            return followerList;
        }

        /**
         * Hands every request its outcome.
         *
         * @param o     the fused segment's outcome (one entry per leader)
         * @param again when the window was 0: the followers' own outcome; else null (followers inherit)
         */
        void distribute(SegmentOutcome o, SegmentOutcome again) {
            for (int i = 0; i < batch.size(); i++) {
                int n = batch.get(i).items.size();
                long[] offsets = new long[n];
                UUID[] ids = new UUID[n];
                boolean[] dup = new boolean[n];
                byte[][] originals = new byte[n][];
                for (int j = 0; j < n; j++) {
                    int fno = followerNo[i][j];
                    if (fno >= 0 && again != null) {
                        offsets[j] = again.offsets()[fno];
                        ids[j] = again.messageIds()[fno];
                        dup[j] = again.duplicate()[fno];
                        originals[j] = again.originalDigests()[fno];
                    } else {
                        int l = leaderOf[i][j];
                        offsets[j] = o.offsets()[l];
                        ids[j] = o.messageIds()[l];
                        dup[j] = fno >= 0 || o.duplicate()[l];
                        // a follower duplicates what its leader's id stands for: the stored original's
                        // payload when the leader was a duplicate itself, else the leader's own
                        originals[j] = o.duplicate()[l] ? o.originalDigests()[l] : fno >= 0 ? leaders.get(l).digest() : null;
                    }
                }
                batch.get(i).done.accept(new SegmentOutcome(o.partitionId(), o.prevLastOffset(), o.windowSeconds(),
                        offsets, ids, dup, originals, o.rejectMismatch()), null);
            }
        }
    }

    // ------------------------------------------------------------------------------ views

    /** @return fused flushes sent (SQL calls made by lanes, including window-0 second calls) */
    public long flushes() {
        return flushes.sum();
    }

    /** @return single-partition requests submitted to lanes */
    public long submissions() {
        return submissions.sum();
    }

    /** @return items settled as followers inside a flush (layer 2) */
    public long followers() {
        return followers.sum();
    }

    /** @return multi-partition requests sent straight to the unfused writer (one bundle each, no lane) */
    public long bundles() {
        return bundles.sum();
    }

    /** @return lanes currently open (idle lanes are removed) */
    public int openLanes() {
        return lanes.size();
    }
}
