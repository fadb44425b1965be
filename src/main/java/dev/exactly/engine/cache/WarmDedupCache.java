package dev.exactly.engine.cache;

import dev.exactly.engine.DedupCache;
import dev.exactly.engine.PartitionKey;
import dev.exactly.engine.ProbeBound;
import dev.exactly.engine.PushItem;
import dev.exactly.engine.SegmentOutcome;
import dev.exactly.engine.cache.PartitionEntry.Commit;
import dev.exactly.engine.cache.MemoryGovernor.Admission;
import dev.exactly.engine.cache.PartitionEntry.State;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * The warm-instance dedup cache: per partition, the hashes stored within the deduplication window,
 * used only to send a narrower probe (a p_verified watermark) with a segment. It never decides a
 * verdict: the store probes (watermark, last_offset] under the partition's row lock either way,
 * and a resident hash only routes the segment to the full probe.
 *
 * <h2>Design</h2>
 * Three parts, one job each. This class holds the validity rules and drives hydration (reads from
 * a {@link HydrationSource} in the background); a {@link ResidentHashes} per partition stores the
 * hashes ({@link SortedRuns} unless another factory is given); the {@link MemoryGovernor} keeps
 * all partitions under the memory cap. The rules are those the Queen message queue's
 * documentation gives for its broker's dedup cache ("Deduplication", sections "The broker cache,
 * and what it is allowed to do" and "Sharded per-partition locks"): the cache's one output is a
 * watermark below which it vouches that none of a segment's hashes occurs, "-1" (probe the whole
 * window) is always a sound answer, entries are born complete, and an interleave gap disqualifies
 * an entry (here once it is confirmed by a second notice above the watermark: "Early notice").
 *
 * <h2>Rules</h2>
 * <ul>
 * <li><b>Born complete.</b> An entry vouches only after a full-window hydration (window plus 5 s
 * slack, every row at or below the allocator watermark L it read). Until then, and while any load
 * is in flight, it answers -1; the load runs in the background ({@link HydrationSource}), at most
 * {@code maxConcurrentLoads} at a time (a partition finding no slot tries again on its next push).</li>
 * <li><b>Contiguous commit.</b> A commit whose previous allocator watermark equals verifiedUpto
 * appends its stored hashes and advances verifiedUpto.</li>
 * <li><b>Early notice.</b> A commit whose previous watermark lies above verifiedUpto is held, not
 * applied, up to {@value PartitionEntry#MAX_EARLY} of them: it may have overtaken the notice of
 * an earlier commit of this instance (fused flushes of a partition in flight commit in lock order,
 * but their notices come back on several connections). The entry keeps vouching for
 * verifiedUpto, which is sound (it holds every hash at or below it; the store probes everything
 * above), and answers -1 for a hash of a held commit. The notice that fills the gap is applied,
 * then the held ones that have become contiguous.</li>
 * <li><b>Interleave gap.</b> One more such commit while {@value PartitionEntry#MAX_EARLY} are held
 * (another instance wrote in between) disqualifies the entry (-1) until a delta read of the gap
 * heals it; never gated.</li>
 * <li><b>Late notice.</b> A commit ending at or below the last installed load's snapshot (its push
 * committed before the read, its notice came after the install), or one that stored nothing, below
 * verifiedUpto, is already held: it is skipped.</li>
 * <li><b>Overlap.</b> Any other commit below verifiedUpto forces a full rebuild.</li>
 * <li><b>Window change.</b> A commit reporting another window, another partition id, or
 * {@link #queueReconfigured} forces a full rebuild, sticky until one succeeds. Independently,
 * the store ignores a watermark vouched under a smaller window than the queue's current one.</li>
 * <li><b>Memo TTL.</b> An entry whose facts (id, window, allocator watermark) were last confirmed
 * more than 30 s ago answers -1 once; that push's outcome confirms them again.</li>
 * <li><b>Local hit.</b> A resident hash answers -1 (a hint, never a verdict).</li>
 * <li><b>Expiry.</b> Granular to the storage's runs: a run is dropped when its newest hash is
 * older than window + slack (times are stored in this process's clock, converted from the
 * database's row ages on the safe side).</li>
 * <li><b>Memory.</b> A full rehydration passes the {@link MemoryGovernor}'s gate (fit under 90% of
 * the cap, LRU eviction of partitions idle for 5 s, else a 30 s suppression); growth past the cap
 * evicts idle partitions, then suppresses the one that grew. See that class for its rules.</li>
 * </ul>
 *
 * <p>Concurrency: a {@link ConcurrentHashMap} of entries, each with its own monitor; no lock is
 * global on the push path. The governor's eviction lock is only tried, never waited for, and
 * victims are locked one at a time, never nested.
 */
public final class WarmDedupCache implements DedupCache {

    private static final Logger LOG = Logger.getLogger(WarmDedupCache.class);

    private final HydrationSource source;
    private final CacheSettings settings;
    private final Ticker ticker;
    private final Supplier<? extends ResidentHashes> storage;

    private final ConcurrentHashMap<PartitionKey, PartitionEntry> entries = new ConcurrentHashMap<>();
    private final MemoryGovernor memory;
    private final AtomicInteger loadsInFlight = new AtomicInteger();

    private final LongAdder narrowed = new LongAdder();
    private final LongAdder full = new LongAdder();
    private final LongAdder hits = new LongAdder();
    private final LongAdder fullLoads = new LongAdder();
    private final LongAdder deltaLoads = new LongAdder();
    private final LongAdder failedLoads = new LongAdder();
    private final LongAdder expired = new LongAdder();

    /**
     * A cache storing each partition's hashes in {@link SortedRuns}.
     *
     * @param source   where hydrations read from ({@link TxnHashRepository} over this instance's pool)
     * @param settings cap and rule constants
     * @param ticker   the clock ({@link Ticker#SYSTEM} in production)
     */
    public WarmDedupCache(HydrationSource source, CacheSettings settings, Ticker ticker) {
        this(source, settings, ticker, SortedRuns::new);
    }

    /**
     * @param source   where hydrations read from ({@link TxnHashRepository} over this instance's pool)
     * @param settings cap and rule constants
     * @param ticker   the clock ({@link Ticker#SYSTEM} in production)
     * @param storage  makes an empty {@link ResidentHashes} for a partition (one per entry and load)
     */
    public WarmDedupCache(HydrationSource source, CacheSettings settings, Ticker ticker,
                          Supplier<? extends ResidentHashes> storage) {
        this.source = source;
        this.settings = settings;
        this.ticker = ticker;
        this.storage = storage;
        this.memory = new MemoryGovernor(settings, ticker, entries, storage);
    }

    // ---------------------------------------------------------------------------------- push path

    @Override
    public ProbeBound bound(PartitionKey key, List<PushItem> items) {
        long now = ticker.millis();
        if (memory.coolingDown(key, now)) {
            full.increment();
            return ProbeBound.PROBE_ALL;
        }
        PartitionEntry e = entries.computeIfAbsent(key, k -> new PartitionEntry(k, storage.get()));
        ProbeBound result = ProbeBound.PROBE_ALL;
        Load load = null;
        synchronized (e) {
            if (e.state != State.DEAD) {
                e.lastUsed = now;
                switch (e.state) {
                    case READY -> result = vouch(e, items, now);
                    case COLD, STALE -> {
                        if (now >= e.retryAt && acquireLoadSlot()) {
                            load = beginLoad(e);
                        }
                    }
                    default -> {
                        // LOADING: answer -1 until it installs
                    }
                }
                memory.account(e);
            }
        }
        if (load != null) {
            start(load, now);
        }
        (result.narrows() ? narrowed : full).increment();
        return result;
    }

    private ProbeBound vouch(PartitionEntry e, List<PushItem> items, long now) {
        expire(e, now);
        if (now - e.memoAt > settings.memoTtlMillis() || e.window < 0 || e.verifiedUpto < 0) {
            return ProbeBound.PROBE_ALL;
        }
        long[] probed = new long[2 * items.size()];
        int n = 0;
        for (PushItem it : items) {
            if (it.probe()) {
                byte[] h = it.hash();
                probed[2 * n] = ResidentHashes.high(h);
                probed[2 * n + 1] = ResidentHashes.low(h);
                n++;
            }
        }
        if (e.resident.containsAny(probed, n) || heldAny(e.early, probed, n)) {
            hits.increment();
            return ProbeBound.PROBE_ALL;
        }
        return new ProbeBound(e.verifiedUpto, e.window);
    }

    /** True when one of the n probed hashes (pairs of longs) is among the held commits' stored ones. */
    private static boolean heldAny(List<Commit> held, long[] probed, int n) {
        if (held == null) {
            return false;
        }
        for (Commit c : held) {
            long[] p = c.pairs();
            for (int k = 0; k < c.stored(); k++) {
                for (int i = 0; i < n; i++) {
                    if (p[2 * k] == probed[2 * i] && p[2 * k + 1] == probed[2 * i + 1]) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    @Override
    public void committed(PartitionKey key, List<PushItem> items, SegmentOutcome outcome) {
        PartitionEntry e = entries.get(key);
        if (e == null) {
            return;
        }
        long now = ticker.millis();
        Commit c = Commit.of(items, outcome, now);
        boolean grew = false;
        synchronized (e) {
            if (e.state == State.DEAD) {
                return;
            }
            e.lastUsed = now;
            switch (e.state) {
                case READY -> {
                    long before = e.accountedBytes;
                    apply(e, c, now);
                    memory.account(e);
                    grew = e.accountedBytes > before;
                }
                case LOADING -> e.buffer(c, settings.maxBufferedCommits());
                case STALE -> checkFacts(e, c);
                default -> {
                    // COLD: nothing is known to extend
                }
            }
        }
        if (grew) {
            memory.enforceCap(e, now);
        }
    }

    @Override
    public void queueReconfigured(String queue) {
        for (PartitionEntry e : entries.values()) {
            if (e.key.queue().equals(queue)) {
                synchronized (e) {
                    e.configGen++;
                    e.needsFull = true;
                    if (e.state == State.READY) {
                        e.state = State.STALE;
                    }
                }
            }
        }
    }

    /** Applies a commit to a READY entry (the contiguity rules). Caller holds e's lock. */
    private void apply(PartitionEntry e, Commit c, long now) {
        if (e.window == PartitionEntry.UNKNOWN_WINDOW) {
            e.window = c.window(); // the entry's content is empty: valid for any window
        }
        if (e.partitionId < 0) {
            e.partitionId = c.partitionId();
        }
        if (c.partitionId() != e.partitionId || c.window() != e.window) {
            e.needsFull = true;
            e.state = State.STALE;
            return;
        }
        if (c.prev() == e.verifiedUpto) {
            e.memoAt = now;
            expire(e, now);
            long[] p = c.pairs();
            for (int k = 0; k < c.stored(); k++) {
                e.resident.add(p[2 * k], p[2 * k + 1], c.offsets()[k], c.time());
            }
            e.verifiedUpto = c.end();
            List<Commit> held = e.early;
            if (held != null && held.get(0).prev() <= e.verifiedUpto) {
                Commit next = held.remove(0); // the gap it waited for is filled
                if (held.isEmpty()) {
                    e.early = null;
                }
                apply(e, next, now); // and so on, while the held ones are contiguous
            }
        } else if (c.prev() > e.verifiedUpto) {
            e.memoAt = now;
            if (e.early == null) {
                e.early = new ArrayList<>(2);
            }
            if (e.early.size() < PartitionEntry.MAX_EARLY) {
                e.early.add(c); // early notice: perhaps it overtook an earlier commit's
                e.early.sort(Comparator.comparingLong(Commit::prev));
            } else {
                e.early = null;
                e.state = State.STALE; // interleave gap: heal by a delta read
            }
        } else if (c.end() <= e.loadedUpto || (c.stored() == 0 && c.prev() <= e.verifiedUpto)) {
            // A late notice, not an overlap: its rows lie at or below the last load's snapshot, so
            // that read already holds them (its push committed before the read, its callback came
            // after the install); or it stored nothing, so there is nothing to remember.
            return;
        } else {
            e.memoAt = now;
            e.needsFull = true; // overlap: impossible under a monotone allocator; rebuild
            e.state = State.STALE;
        }
    }

    /** A commit seen while STALE: it cannot extend the content, but it can reveal changed facts. */
    private static void checkFacts(PartitionEntry e, Commit c) {
        if ((e.window >= 0 && c.window() != e.window) || (e.partitionId >= 0 && c.partitionId() != e.partitionId)) {
            e.needsFull = true;
        }
    }

    private void expire(PartitionEntry e, long now) {
        if (e.window >= 0) {
            long cutoff = now - (e.window + (long) settings.skewSlackSeconds()) * 1000L;
            long dropped = e.resident.expireBefore(cutoff);
            if (dropped > 0) {
                expired.add(dropped);
            }
        }
    }

    // ---------------------------------------------------------------------------------- loads

    /** A hydration in flight. */
    private final class Load {
        final PartitionEntry e;
        final int epoch;
        final int configGen;
        final boolean full;
        final long after;
        final int window;
        final State previous;
        /** Bytes held against the cap while it reads (full loads; a delta load reserves nothing). */
        final MemoryGovernor.Reservation reservation;
        volatile boolean tooBig;

        Load(PartitionEntry e, State previous, long estimate) {
            this.e = e;
            this.epoch = e.epoch;
            this.configGen = e.configGen;
            this.full = e.needsFull;
            this.after = e.verifiedUpto;
            this.window = e.window;
            this.previous = previous;
            this.reservation = new MemoryGovernor.Reservation(e, estimate);
        }
    }

    /** Takes one of the {@code maxConcurrentLoads} slots; false when all are taken. */
    private boolean acquireLoadSlot() {
        while (true) {
            int n = loadsInFlight.get();
            if (n >= settings.maxConcurrentLoads()) {
                return false;
            }
            if (loadsInFlight.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /** Marks e LOADING and describes the load to start. Caller holds e's lock. */
    private Load beginLoad(PartitionEntry e) {
        State previous = e.state;
        e.epoch++;
        e.state = State.LOADING;
        e.buffered = null;
        e.bufferOverflow = false;
        e.early = null; // the load reads its rows
        return new Load(e, previous, e.needsFull ? memory.estimate(e) : 0);
    }

    /** Admits (full loads only) and starts a load. Called without any entry lock. */
    private void start(Load l, long now) {
        PartitionEntry e = l.e;
        if (l.full) {
            Admission a = memory.admit(l.reservation, now);
            if (a != Admission.ADMIT) {
                loadsInFlight.decrementAndGet();
            }
            if (a == Admission.RETRY) {
                synchronized (e) {
                    if (e.epoch == l.epoch && e.state == State.LOADING) {
                        e.state = l.previous;
                        e.buffered = null;
                    }
                }
                return;
            }
            if (a == Admission.SUPPRESS) {
                memory.suppress(e, now);
                return;
            }
        }
        ResidentHashes fresh = storage.get();
        HydrationSource.RowSink sink = (offset, hi, lo, age) -> {
            if (e.epoch != l.epoch) {
                return false; // evicted or superseded: stop reading
            }
            fresh.add(hi, lo, offset, ticker.millis() - Math.max(0, age));
            if (l.full && (fresh.hashes() & 1023) == 0 && !memory.grow(l.reservation, fresh.bytes())) {
                l.tooBig = true;
                return false;
            }
            return true;
        };
        try {
            (l.full ? source.fullWindow(e.key, settings.skewSlackSeconds(), sink)
                    : source.delta(e.key, l.after, l.window, settings.maxDeltaRows(), sink))
                    .subscribe().with(snap -> installed(l, fresh, snap), err -> failed(l, err));
        } catch (RuntimeException err) {
            failed(l, err);
        }
    }

    private void installed(Load l, ResidentHashes fresh, HydrationSource.Snapshot snap) {
        loadsInFlight.decrementAndGet();
        long now = ticker.millis();
        PartitionEntry e = l.e;
        boolean suppress = false;
        boolean installed = false;
        synchronized (e) {
            memory.release(l.reservation);
            if (e.epoch != l.epoch || e.state != State.LOADING) {
                return; // evicted or superseded meanwhile
            }
            if (l.tooBig) {
                suppress = true;
            } else if (!snap.complete()) {
                failedLoads.increment();
                if (l.full) {
                    e.state = l.previous;
                    e.retryAt = now + settings.retryMillis();
                } else {
                    e.needsFull = true; // the gap could not be read exactly: rebuild
                    e.state = State.STALE;
                }
                e.buffered = null;
            } else if (l.full) {
                e.resident = fresh;
                e.partitionId = snap.partitionId();
                e.window = snap.windowSeconds() < 0 ? PartitionEntry.UNKNOWN_WINDOW : snap.windowSeconds();
                e.verifiedUpto = snap.lastOffset();
                e.needsFull = false;
                installed = true;
                fullLoads.increment();
            } else if (e.partitionId >= 0 && snap.partitionId() != e.partitionId) {
                e.needsFull = true;
                e.state = State.STALE;
                e.buffered = null;
            } else {
                e.resident.append(fresh);
                e.verifiedUpto = snap.lastOffset();
                installed = true;
                deltaLoads.increment();
            }
            if (installed) {
                e.loadedUpto = snap.lastOffset();
                e.memoAt = now;
                e.state = State.READY;
                replay(e, snap.lastOffset(), now);
                if (e.configGen != l.configGen) {
                    e.needsFull = true; // reconfigured while loading: this content may be for the old window
                    if (e.state == State.READY) {
                        e.state = State.STALE;
                    }
                }
                expire(e, now);
            }
            memory.account(e);
        }
        if (suppress) {
            memory.tooBig(e, fresh.bytes(), now);
        } else if (installed) {
            memory.enforceCap(e, now);
        }
    }

    /** Applies commits buffered during a load, skipping those the load's snapshot already held. */
    private void replay(PartitionEntry e, long loadedUpto, long now) {
        List<Commit> b = e.buffered;
        boolean overflow = e.bufferOverflow;
        e.buffered = null;
        e.bufferOverflow = false;
        if (b != null) {
            b.sort(Comparator.comparingLong(Commit::prev));
            for (Commit c : b) {
                if (e.state == State.READY && c.end() > loadedUpto) {
                    apply(e, c, now); // stored after the snapshot: the contiguity rules decide
                    continue;
                }
                // already inside the snapshot (or the entry is disqualified): only facts can matter
                checkFacts(e, c);
                if (e.needsFull && e.state == State.READY) {
                    e.state = State.STALE;
                }
            }
        }
        if (overflow && e.state == State.READY) {
            e.state = State.STALE; // some commits were not remembered: heal the gap
        }
    }

    private void failed(Load l, Throwable err) {
        loadsInFlight.decrementAndGet();
        failedLoads.increment();
        long now = ticker.millis();
        PartitionEntry e = l.e;
        synchronized (e) {
            memory.release(l.reservation);
            if (e.epoch == l.epoch && e.state == State.LOADING) {
                e.state = l.previous;
                e.buffered = null;
                e.retryAt = now + settings.retryMillis();
            }
        }
        LOG.debugf(err, "dedup cache: hydration of %s failed; it answers -1 meanwhile", e.key);
    }

    // ---------------------------------------------------------------------------------- views

    /** @return a point-in-time view of the cache's size and counters */
    public CacheStats stats() {
        long now = ticker.millis();
        return new CacheStats(memory.residentBytes(), memory.residentHashes(), entries.size(),
                memory.suppressedPartitions(now), narrowed.sum(), full.sum(), hits.sum(), fullLoads.sum(),
                deltaLoads.sum(), failedLoads.sum(), memory.evictions(), memory.suppressions(), memory.warnings(),
                expired.sum());
    }

    /** @return the settings this cache runs with */
    public CacheSettings settings() {
        return settings;
    }

    /** @return hydrations currently in flight (tests wait for 0) */
    public int loadsInFlight() {
        return loadsInFlight.get();
    }

    /** @return entries in the cooldown bookkeeping map (soft-capped) */
    int cooldownEntries() {
        return memory.cooldownEntries();
    }

    /** @return entries in the footprint-hint bookkeeping map (soft-capped) */
    int footprintEntries() {
        return memory.footprintEntries();
    }

    /** @return a description of a partition's entry, or null when it is not resident (tests, logs) */
    public String describe(PartitionKey key) {
        PartitionEntry e = entries.get(key);
        if (e == null) {
            return null;
        }
        synchronized (e) {
            return e.toString();
        }
    }

    /** @return true when the partition has a resident entry */
    public boolean resident(PartitionKey key) {
        return entries.containsKey(key);
    }

    /** @return true when the partition serves a suppression cooldown now */
    public boolean suppressed(PartitionKey key) {
        return memory.suppressed(key, ticker.millis());
    }
}
