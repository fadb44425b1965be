package dev.exactly.engine.cache;

import dev.exactly.engine.DedupCache;
import dev.exactly.engine.PartitionKey;
import dev.exactly.engine.ProbeBound;
import dev.exactly.engine.PushItem;
import dev.exactly.engine.SegmentOutcome;
import dev.exactly.engine.cache.PartitionEntry.Commit;
import dev.exactly.engine.cache.PartitionEntry.State;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import org.jboss.logging.Logger;

/**
 * The warm-instance dedup cache: per partition, the hashes stored within the deduplication window,
 * used only to send a narrower probe (a p_verified watermark) with a segment. It never decides a
 * verdict: the store probes (watermark, last_offset] under the partition's row lock either way,
 * and a resident hash only routes the segment to the full probe. (Spec: queen-deduplication.md,
 * "The broker cache, and what it is allowed to do", "How the hashes are stored", "Under memory
 * pressure", "Sharded per-partition locks".)
 *
 * <h2>Rules</h2>
 * <ul>
 * <li><b>Born complete.</b> An entry vouches only after a full-window hydration (window plus 5 s
 * slack, every row at or below the allocator watermark L it read). Until then, and while any load
 * is in flight, it answers -1; the load runs in the background ({@link HydrationSource}), at most
 * {@code maxConcurrentLoads} at a time (a partition finding no slot tries again on its next push).</li>
 * <li><b>Contiguous commit.</b> A commit whose previous allocator watermark equals verifiedUpto
 * appends its stored hashes and advances verifiedUpto.</li>
 * <li><b>Interleave gap.</b> A commit above verifiedUpto + 1 (another instance wrote in between)
 * disqualifies the entry (-1) until a delta read of the gap heals it; never gated.</li>
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
 * <li><b>Expiry.</b> Block-granular: a block is dropped when its newest hash is older than
 * window + slack (block times are stored in this process's clock, converted from the database's
 * row ages on the safe side).</li>
 * <li><b>Memory.</b> A full rehydration is admitted only if everything but the partition's own
 * bytes plus its estimated footprint stays under 90% of the cap, evicting least-recently-used
 * partitions not used within 5 s to make room; otherwise the partition is suppressed (answers -1)
 * for a 30 s cooldown, with one warning per minute process-wide. Partitions with no footprint
 * history estimate an empty window and are always admitted; cheap admissions (vouching entries,
 * gap heals) are never gated. If growth takes the cache over its cap, non-recent partitions are
 * evicted, then the partition that grew is suppressed. Cooldown and footprint maps are soft-capped.</li>
 * </ul>
 *
 * <p>Concurrency: a {@link ConcurrentHashMap} of entries, each with its own monitor; no lock is
 * global on the push path. Eviction and admission take one eviction lock with tryLock (a busy
 * lock means "answer -1 now, retry later") and then lock victims one at a time, never nested.
 */
public final class WarmDedupCache implements DedupCache {

    private static final Logger LOG = Logger.getLogger(WarmDedupCache.class);

    private enum Admission { ADMIT, RETRY, SUPPRESS }

    private final HydrationSource source;
    private final CacheSettings settings;
    private final Ticker ticker;

    private final ConcurrentHashMap<PartitionKey, PartitionEntry> entries = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<PartitionKey, Long> cooldowns = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<PartitionKey, Long> footprints = new ConcurrentHashMap<>();
    private final AtomicLong resident = new AtomicLong();
    private final AtomicLong residentHashes = new AtomicLong();
    private final AtomicLong reserved = new AtomicLong();
    private final ReentrantLock evictionLock = new ReentrantLock();
    private final AtomicLong lastWarn = new AtomicLong(Long.MIN_VALUE / 2);
    private final AtomicInteger loadsInFlight = new AtomicInteger();

    private final LongAdder narrowed = new LongAdder();
    private final LongAdder full = new LongAdder();
    private final LongAdder hits = new LongAdder();
    private final LongAdder fullLoads = new LongAdder();
    private final LongAdder deltaLoads = new LongAdder();
    private final LongAdder failedLoads = new LongAdder();
    private final LongAdder evictions = new LongAdder();
    private final LongAdder suppressions = new LongAdder();
    private final LongAdder warnings = new LongAdder();
    private final LongAdder expired = new LongAdder();

    /**
     * @param source   where hydrations read from ({@link TxnHashReader} over this instance's pool)
     * @param settings cap and rule constants
     * @param ticker   the clock ({@link Ticker#SYSTEM} in production)
     */
    public WarmDedupCache(HydrationSource source, CacheSettings settings, Ticker ticker) {
        this.source = source;
        this.settings = settings;
        this.ticker = ticker;
    }

    // ---------------------------------------------------------------------------------- push path

    @Override
    public ProbeBound bound(PartitionKey key, List<PushItem> items) {
        long now = ticker.millis();
        Long until = cooldowns.get(key);
        if (until != null) {
            if (now < until) {
                full.increment();
                return ProbeBound.PROBE_ALL;
            }
            cooldowns.remove(key, until);
        }
        PartitionEntry e = entries.computeIfAbsent(key, PartitionEntry::new);
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
                settle(e);
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
                probed[2 * n] = HashRing.high(h);
                probed[2 * n + 1] = HashRing.low(h);
                n++;
            }
        }
        if (e.ring.containsAny(probed, n)) {
            hits.increment();
            return ProbeBound.PROBE_ALL;
        }
        return new ProbeBound(e.verifiedUpto, e.window);
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
                    settle(e);
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
            enforceCap(e, now);
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
                e.ring.add(p[2 * k], p[2 * k + 1], c.offsets()[k], c.time());
            }
            e.verifiedUpto = c.end();
        } else if (c.prev() > e.verifiedUpto) {
            e.memoAt = now;
            e.state = State.STALE; // interleave gap: heal by a delta read
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
            long dropped = e.ring.expireBefore(cutoff);
            if (dropped > 0) {
                expired.add(dropped);
            }
        }
    }

    /** Brings the global accounting in line with the entry. Caller holds e's lock. */
    private void settle(PartitionEntry e) {
        long b = e.state == State.DEAD ? 0 : PartitionEntry.ENTRY_BYTES + e.ring.bytes();
        long h = e.state == State.DEAD ? 0 : e.ring.hashes();
        if (b != e.accountedBytes) {
            resident.addAndGet(b - e.accountedBytes);
            e.accountedBytes = b;
        }
        if (h != e.accountedHashes) {
            residentHashes.addAndGet(h - e.accountedHashes);
            e.accountedHashes = h;
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
        long estimate;
        long reservedBytes;
        volatile boolean tooBig;

        Load(PartitionEntry e, State previous) {
            this.e = e;
            this.epoch = e.epoch;
            this.configGen = e.configGen;
            this.full = e.needsFull;
            this.after = e.verifiedUpto;
            this.window = e.window;
            this.previous = previous;
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
        Load l = new Load(e, previous);
        if (l.full) {
            Long hint = footprints.get(e.key);
            l.estimate = Math.max(hint == null ? 0 : hint, e.ring.hashes() > 0 ? e.accountedBytes : 0);
        }
        return l;
    }

    /** Admits (full loads only) and starts a load. Called without any entry lock. */
    private void start(Load l, long now) {
        PartitionEntry e = l.e;
        if (l.full) {
            Admission a = admit(l, now);
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
                suppress(e, now);
                return;
            }
        }
        HashRing fresh = new HashRing();
        HydrationSource.RowSink sink = (offset, hi, lo, age) -> {
            if (e.epoch != l.epoch) {
                return false; // evicted or superseded: stop reading
            }
            fresh.add(hi, lo, offset, ticker.millis() - Math.max(0, age));
            if (l.full && (fresh.hashes() & 1023) == 0 && !grow(l, fresh.bytes())) {
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

    private void installed(Load l, HashRing fresh, HydrationSource.Snapshot snap) {
        loadsInFlight.decrementAndGet();
        long now = ticker.millis();
        PartitionEntry e = l.e;
        boolean suppress = false;
        boolean installed = false;
        synchronized (e) {
            release(l);
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
                e.ring = fresh;
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
                e.ring.append(fresh);
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
            settle(e);
        }
        if (suppress) {
            remember(footprints, e.key, fresh.bytes() + PartitionEntry.ENTRY_BYTES, now);
            suppress(e, now);
        } else if (installed) {
            enforceCap(e, now);
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
            release(l);
            if (e.epoch == l.epoch && e.state == State.LOADING) {
                e.state = l.previous;
                e.buffered = null;
                e.retryAt = now + settings.retryMillis();
            }
        }
        LOG.debugf(err, "dedup cache: hydration of %s failed; it answers -1 meanwhile", e.key);
    }

    private void release(Load l) {
        if (l.reservedBytes != 0) {
            reserved.addAndGet(-l.reservedBytes);
            l.reservedBytes = 0;
        }
    }

    // ---------------------------------------------------------------------------------- memory

    /** The admission gate for a full load (spec, "Under memory pressure"). */
    private Admission admit(Load l, long now) {
        if (l.estimate <= 0) {
            return Admission.ADMIT; // an empty window, as far as anyone knows: never suppressed
        }
        if (!evictionLock.tryLock()) {
            return Admission.RETRY;
        }
        try {
            long limit = (long) (settings.maxBytes() * settings.fitRatio());
            long own = l.e.accountedBytes;
            if (resident.get() + reserved.get() - own + l.estimate <= limit) {
                reserve(l);
                return Admission.ADMIT;
            }
            List<PartitionEntry> victims = evictable(l.e, now);
            long freeable = 0;
            for (PartitionEntry v : victims) {
                freeable += v.accountedBytes;
            }
            if (resident.get() + reserved.get() - own - freeable + l.estimate > limit) {
                return Admission.SUPPRESS;
            }
            for (PartitionEntry v : victims) {
                if (resident.get() + reserved.get() - own + l.estimate <= limit) {
                    break;
                }
                evict(v, now, false);
            }
            if (resident.get() + reserved.get() - own + l.estimate > limit) {
                return Admission.SUPPRESS; // a victim became recent meanwhile
            }
            reserve(l);
            return Admission.ADMIT;
        } finally {
            evictionLock.unlock();
        }
    }

    /**
     * A full load's content grew to {@code bytes}: its reservation follows, so that concurrent
     * hydrations (e.g. every partition after a restart, each estimating an empty window) cannot
     * together overshoot the cap. Over the cap, idle partitions are evicted (LRU) to make room.
     *
     * @return false when the hydration cannot fit even so: it stops and the partition is suppressed
     */
    private boolean grow(Load l, long bytes) {
        if (bytes > l.reservedBytes) {
            reserved.addAndGet(bytes - l.reservedBytes);
            l.reservedBytes = bytes;
        }
        if (resident.get() + reserved.get() - l.e.accountedBytes <= settings.maxBytes()) {
            return true;
        }
        if (!evictionLock.tryLock()) {
            return true; // someone else is evicting; checked again a thousand rows on
        }
        try {
            long now = ticker.millis();
            for (PartitionEntry v : evictable(l.e, now)) {
                if (resident.get() + reserved.get() - l.e.accountedBytes <= settings.maxBytes()) {
                    break;
                }
                evict(v, now, false);
            }
            return resident.get() + reserved.get() - l.e.accountedBytes <= settings.maxBytes();
        } finally {
            evictionLock.unlock();
        }
    }

    private void reserve(Load l) {
        reserved.addAndGet(l.estimate);
        l.reservedBytes = l.estimate;
    }

    /** Sheds memory after growth: non-recent partitions first (LRU), then the one that grew. */
    private void enforceCap(PartitionEntry grower, long now) {
        if (resident.get() <= settings.maxBytes() || !evictionLock.tryLock()) {
            return;
        }
        boolean suppressGrower = false;
        try {
            for (PartitionEntry v : evictable(grower, now)) {
                if (resident.get() <= settings.maxBytes()) {
                    break;
                }
                evict(v, now, false);
            }
            suppressGrower = resident.get() > settings.maxBytes();
        } finally {
            evictionLock.unlock();
        }
        if (suppressGrower) {
            remember(footprints, grower.key, grower.accountedBytes, now);
            suppress(grower, now);
        }
    }

    /** Entries that may be evicted for another: not {@code except}, not used recently; LRU first. */
    private List<PartitionEntry> evictable(PartitionEntry except, long now) {
        List<PartitionEntry> out = new ArrayList<>();
        for (PartitionEntry v : entries.values()) {
            if (v != except && v.state != State.DEAD && now - v.lastUsed >= settings.recentUseMillis()) {
                out.add(v);
            }
        }
        out.sort(Comparator.comparingLong(v -> v.lastUsed));
        return out;
    }

    /** Evicts a whole partition. {@code force} skips the recent-use guard (suppression). */
    private void evict(PartitionEntry v, long now, boolean force) {
        synchronized (v) {
            if (v.state == State.DEAD || (!force && now - v.lastUsed < settings.recentUseMillis())) {
                return;
            }
            if (v.ring.hashes() > 0) {
                remember(footprints, v.key, v.accountedBytes, now);
            }
            v.state = State.DEAD;
            v.epoch++;
            v.ring = new HashRing();
            v.buffered = null;
            settle(v);
            entries.remove(v.key, v);
            evictions.increment();
        }
    }

    /** Suppresses a partition: evicts it and makes it answer -1 for the cooldown. */
    private void suppress(PartitionEntry e, long now) {
        evict(e, now, true);
        remember(cooldowns, e.key, now + settings.cooldownMillis(), now);
        suppressions.increment();
        long last = lastWarn.get();
        if (now - last >= settings.warnIntervalMillis() && lastWarn.compareAndSet(last, now)) {
            warnings.increment();
            LOG.warnf("dedup cache at its memory cap (%d MiB): partition %s/%s answers full probes for %d s; "
                            + "%d partitions suppressed (raise exactly.dedup-cache.max-mb to keep more warm)",
                    settings.maxBytes() >> 20, e.key.queue(), e.key.partition(), settings.cooldownMillis() / 1000,
                    suppressedPartitions(now));
        }
    }

    /** Puts into a bookkeeping map, pruning it past its soft cap (expired cooldowns first). */
    private void remember(ConcurrentHashMap<PartitionKey, Long> map, PartitionKey key, long value, long now) {
        map.put(key, value);
        if (map.size() > settings.bookkeepingCap()) {
            if (map == cooldowns) {
                map.values().removeIf(until -> until <= now);
            }
            if (map.size() > settings.bookkeepingCap()) {
                map.clear(); // the only cost: footprints are re-measured, cooldowns end early
                map.put(key, value);
            }
        }
    }

    private int suppressedPartitions(long now) {
        int n = 0;
        for (Map.Entry<PartitionKey, Long> c : cooldowns.entrySet()) {
            if (c.getValue() > now) {
                n++;
            }
        }
        return n;
    }

    // ---------------------------------------------------------------------------------- views

    /** @return a point-in-time view of the cache's size and counters */
    public CacheStats stats() {
        long now = ticker.millis();
        return new CacheStats(resident.get(), residentHashes.get(), entries.size(), suppressedPartitions(now),
                narrowed.sum(), full.sum(), hits.sum(), fullLoads.sum(), deltaLoads.sum(), failedLoads.sum(),
                evictions.sum(), suppressions.sum(), warnings.sum(), expired.sum());
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
        return cooldowns.size();
    }

    /** @return entries in the footprint-hint bookkeeping map (soft-capped) */
    int footprintEntries() {
        return footprints.size();
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
        Long until = cooldowns.get(key);
        return until != null && ticker.millis() < until;
    }
}
