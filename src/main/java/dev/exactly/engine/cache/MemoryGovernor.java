package dev.exactly.engine.cache;

import dev.exactly.engine.PartitionKey;
import dev.exactly.engine.cache.PartitionEntry.State;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * The warm cache's memory governor: keeps the resident hashes of all partitions under the cap
 * ({@link CacheSettings#maxBytes()}) without the thrash loop a plain LRU falls into at the cap (a
 * push to an evicted partition rehydrates its whole window, which evicts a hot partition, which
 * rehydrates, and so on).
 *
 * <h2>Design</h2>
 * The governor owns the accounting (resident bytes and hashes of every entry, bytes reserved by
 * hydrations in flight), the admission gate, eviction and suppression. It never reads the
 * database and never decides a verdict: a partition it refuses simply answers "probe the whole
 * window" ({@link dev.exactly.engine.ProbeBound#PROBE_ALL}), which is always sound. The rules are
 * the ones the Queen message queue's documentation gives for its broker's dedup cache
 * ("Deduplication", section "Under memory pressure"):
 * <ul>
 * <li><b>Fit test with hysteresis.</b> A full rehydration is admitted ({@link #admit}) only if
 * everything but the partition's own bytes, plus its estimated footprint, stays under
 * {@link CacheSettings#fitRatio()} (90%) of the cap; idle partitions are evicted, least recently
 * used first, to make room. The headroom turns ping-pong into a stable resident set plus
 * suppressed overflow.</li>
 * <li><b>Unknown footprint is admitted.</b> A partition with no footprint history estimates an
 * empty window and is never suppressed on first contact; cheap admissions (vouching entries, gap
 * heals) never reach the gate.</li>
 * <li><b>Reservations follow growth.</b> A full hydration reserves its estimate and then its
 * actual size as it reads ({@link #grow}), so many concurrent hydrations (every partition after a
 * restart, each estimating an empty window) cannot together overshoot the cap; one that cannot fit
 * even after evicting idle partitions stops reading and is suppressed.</li>
 * <li><b>Recent-use guard.</b> A partition used within {@link CacheSettings#recentUseMillis()}
 * (5 s) is never evicted to admit another; the newcomer is suppressed instead.</li>
 * <li><b>Growth past the cap</b> ({@link #enforceCap}): idle partitions are evicted (LRU), then
 * the partition that grew is suppressed.</li>
 * <li><b>Cooldown.</b> A suppressed partition is evicted and answers -1 for
 * {@link CacheSettings#cooldownMillis()} (30 s) before it is tested again.</li>
 * <li><b>One warning per interval</b> ({@link CacheSettings#warnIntervalMillis()}, 60 s),
 * process-wide.</li>
 * <li><b>Soft-capped bookkeeping.</b> The cooldown and footprint-hint maps hold at most about
 * {@link CacheSettings#bookkeepingCap()} entries: expired cooldowns are pruned first, then the map
 * is cleared (its only cost: footprints are re-measured, cooldowns end early).</li>
 * </ul>
 *
 * <p>Concurrency: counters are atomics, so accounting never takes a global lock on the push path.
 * Admission, growth past the cap and enforcement take one eviction lock with {@code tryLock} (a
 * busy lock means "answer -1 now, retry later", or for growth "check again later") and then lock
 * victims one at a time, never nested inside another entry's monitor.
 */
final class MemoryGovernor {

    private static final Logger LOG = Logger.getLogger(MemoryGovernor.class);

    /** The gate's answer to a full hydration. */
    enum Admission {
        /** Admitted: its estimate is reserved. */
        ADMIT,
        /** The eviction lock is busy: the partition answers -1 now and tries again on its next push. */
        RETRY,
        /** It does not fit: the partition is to be suppressed. */
        SUPPRESS
    }

    /**
     * The bytes one full hydration holds against the cap while it is in flight. Owned by the load;
     * written by the thread that streams its rows and by the one that installs it, never at once.
     */
    static final class Reservation {
        final PartitionEntry entry;
        /** The footprint expected before reading (0 when unknown). */
        final long estimate;
        long reservedBytes;

        Reservation(PartitionEntry entry, long estimate) {
            this.entry = entry;
            this.estimate = estimate;
        }
    }

    private final CacheSettings settings;
    private final Ticker ticker;
    private final Map<PartitionKey, PartitionEntry> entries;
    private final Supplier<? extends ResidentHashes> storage;

    private final ConcurrentHashMap<PartitionKey, Long> cooldowns = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<PartitionKey, Long> footprints = new ConcurrentHashMap<>();
    private final AtomicLong resident = new AtomicLong();
    private final AtomicLong residentHashes = new AtomicLong();
    private final AtomicLong reserved = new AtomicLong();
    private final ReentrantLock evictionLock = new ReentrantLock();
    private final AtomicLong lastWarn = new AtomicLong(Long.MIN_VALUE / 2);

    private final LongAdder evictions = new LongAdder();
    private final LongAdder suppressions = new LongAdder();
    private final LongAdder warnings = new LongAdder();

    /**
     * @param settings the cap and the rule constants
     * @param ticker   the clock (milliseconds)
     * @param entries  the cache's resident entries: victims are chosen among them and removed from it
     * @param storage  makes the empty hash set an evicted entry is left with
     */
    MemoryGovernor(CacheSettings settings, Ticker ticker, Map<PartitionKey, PartitionEntry> entries,
                   Supplier<? extends ResidentHashes> storage) {
        this.settings = settings;
        this.ticker = ticker;
        this.entries = entries;
        this.storage = storage;
    }

    // ---------------------------------------------------------------------------------- accounting

    /** Brings the resident totals in line with the entry (0 once DEAD). Caller holds e's lock. */
    void account(PartitionEntry e) {
        long b = e.state == State.DEAD ? 0 : PartitionEntry.ENTRY_BYTES + e.resident.bytes();
        long h = e.state == State.DEAD ? 0 : e.resident.hashes();
        if (b != e.accountedBytes) {
            resident.addAndGet(b - e.accountedBytes);
            e.accountedBytes = b;
        }
        if (h != e.accountedHashes) {
            residentHashes.addAndGet(h - e.accountedHashes);
            e.accountedHashes = h;
        }
    }

    /**
     * The footprint a full hydration of e is expected to have: the larger of the last one measured
     * (at eviction or suppression) and what it holds now, if it holds any hash; 0 when unknown.
     * Caller holds e's lock.
     */
    long estimate(PartitionEntry e) {
        Long hint = footprints.get(e.key);
        return Math.max(hint == null ? 0 : hint, e.resident.hashes() > 0 ? e.accountedBytes : 0);
    }

    // ---------------------------------------------------------------------------------- admission

    /**
     * The admission gate for a full hydration. Called without any entry lock.
     *
     * @return ADMIT (the estimate is now reserved), RETRY or SUPPRESS; see {@link Admission}
     */
    Admission admit(Reservation r, long now) {
        if (r.estimate <= 0) {
            return Admission.ADMIT; // an empty window, as far as anyone knows: never suppressed
        }
        if (!evictionLock.tryLock()) {
            return Admission.RETRY;
        }
        try {
            long limit = (long) (settings.maxBytes() * settings.fitRatio());
            long own = r.entry.accountedBytes;
            if (resident.get() + reserved.get() - own + r.estimate <= limit) {
                reserve(r);
                return Admission.ADMIT;
            }
            List<PartitionEntry> victims = evictable(r.entry, now);
            long freeable = 0;
            for (PartitionEntry v : victims) {
                freeable += v.accountedBytes;
            }
            if (resident.get() + reserved.get() - own - freeable + r.estimate > limit) {
                return Admission.SUPPRESS;
            }
            for (PartitionEntry v : victims) {
                if (resident.get() + reserved.get() - own + r.estimate <= limit) {
                    break;
                }
                evict(v, now, false);
            }
            if (resident.get() + reserved.get() - own + r.estimate > limit) {
                return Admission.SUPPRESS; // a victim became recent meanwhile
            }
            reserve(r);
            return Admission.ADMIT;
        } finally {
            evictionLock.unlock();
        }
    }

    /**
     * A full hydration's content grew to {@code bytes}: its reservation follows, so that concurrent
     * hydrations cannot together overshoot the cap. Over the cap, idle partitions are evicted (LRU)
     * to make room.
     *
     * @return false when the hydration cannot fit even so: it stops and the partition is suppressed
     */
    boolean grow(Reservation r, long bytes) {
        if (bytes > r.reservedBytes) {
            reserved.addAndGet(bytes - r.reservedBytes);
            r.reservedBytes = bytes;
        }
        if (resident.get() + reserved.get() - r.entry.accountedBytes <= settings.maxBytes()) {
            return true;
        }
        if (!evictionLock.tryLock()) {
            return true; // someone else is evicting; checked again a thousand rows on
        }
        try {
            long now = ticker.millis();
            for (PartitionEntry v : evictable(r.entry, now)) {
                if (resident.get() + reserved.get() - r.entry.accountedBytes <= settings.maxBytes()) {
                    break;
                }
                evict(v, now, false);
            }
            return resident.get() + reserved.get() - r.entry.accountedBytes <= settings.maxBytes();
        } finally {
            evictionLock.unlock();
        }
    }

    private void reserve(Reservation r) {
        reserved.addAndGet(r.estimate);
        r.reservedBytes = r.estimate;
    }

    /** Gives a finished (installed, failed or discarded) hydration's reservation back. */
    void release(Reservation r) {
        if (r.reservedBytes != 0) {
            reserved.addAndGet(-r.reservedBytes);
            r.reservedBytes = 0;
        }
    }

    // ---------------------------------------------------------------------------------- shedding

    /** Sheds memory after growth: non-recent partitions first (LRU), then the one that grew. */
    void enforceCap(PartitionEntry grower, long now) {
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

    /**
     * A full hydration of e stopped because it could not fit: its measured size becomes the
     * partition's footprint hint and the partition is suppressed.
     *
     * @param bytes the hashes' bytes read before it stopped
     */
    void tooBig(PartitionEntry e, long bytes, long now) {
        remember(footprints, e.key, bytes + PartitionEntry.ENTRY_BYTES, now);
        suppress(e, now);
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
            if (v.resident.hashes() > 0) {
                remember(footprints, v.key, v.accountedBytes, now);
            }
            v.state = State.DEAD;
            v.epoch++;
            v.resident = storage.get();
            v.buffered = null;
            v.early = null;
            account(v);
            entries.remove(v.key, v);
            evictions.increment();
        }
    }

    /** Suppresses a partition: evicts it and makes it answer -1 for the cooldown. */
    void suppress(PartitionEntry e, long now) {
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

    // ---------------------------------------------------------------------------------- cooldowns

    /**
     * The push path's check: true while the partition serves a cooldown; an ended cooldown is
     * forgotten.
     */
    boolean coolingDown(PartitionKey key, long now) {
        Long until = cooldowns.get(key);
        if (until != null) {
            if (now < until) {
                return true;
            }
            cooldowns.remove(key, until);
        }
        return false;
    }

    /** @return true when the partition serves a suppression cooldown at {@code now} */
    boolean suppressed(PartitionKey key, long now) {
        Long until = cooldowns.get(key);
        return until != null && now < until;
    }

    /** @return partitions serving a suppression cooldown at {@code now} */
    int suppressedPartitions(long now) {
        int n = 0;
        for (Map.Entry<PartitionKey, Long> c : cooldowns.entrySet()) {
            if (c.getValue() > now) {
                n++;
            }
        }
        return n;
    }

    // ---------------------------------------------------------------------------------- views

    /** @return accounted bytes of every resident entry */
    long residentBytes() {
        return resident.get();
    }

    /** @return hashes resident over all entries */
    long residentHashes() {
        return residentHashes.get();
    }

    /** @return bytes reserved by full hydrations in flight */
    long reservedBytes() {
        return reserved.get();
    }

    /** @return entries evicted so far (LRU or suppression) */
    long evictions() {
        return evictions.sum();
    }

    /** @return suppressions so far */
    long suppressions() {
        return suppressions.sum();
    }

    /** @return memory-pressure warnings logged so far */
    long warnings() {
        return warnings.sum();
    }

    /** @return entries in the cooldown bookkeeping map (soft-capped) */
    int cooldownEntries() {
        return cooldowns.size();
    }

    /** @return entries in the footprint-hint bookkeeping map (soft-capped) */
    int footprintEntries() {
        return footprints.size();
    }

    /** @return the footprint hint recorded for a partition, or null */
    Long footprint(PartitionKey key) {
        return footprints.get(key);
    }
}
