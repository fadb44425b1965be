package dev.exactly.engine.cache;

/**
 * Tunables of {@link WarmDedupCache}. The defaults are the values the Queen message queue's
 * documentation gives for its broker's dedup cache ("Deduplication", sections "The broker cache,
 * and what it is allowed to do" and "Under memory pressure": 90% fit line, 30 s cooldown, 5 s
 * recent-use guard, one warning a minute, 30 s memo TTL, 5 s clock-skew slack, 100,000 bookkeeping
 * entries); the buffer, delta, retry and concurrency limits are this project's. Only the memory
 * cap is configured by operators ({@code exactly.dedup-cache.max-mb}).
 *
 * @param maxBytes            memory cap for resident hashes and their bookkeeping, in bytes
 * @param fitRatio            a full rehydration is admitted only if the cache stays under this
 *                            fraction of the cap (hysteresis; 0.9)
 * @param cooldownMillis      how long a partition that failed admission answers -1 before it is
 *                            tested again (30 s)
 * @param recentUseMillis     a partition used this recently is never evicted to admit another (5 s)
 * @param warnIntervalMillis  at most one pressure warning per this interval, process-wide (60 s)
 * @param memoTtlMillis       an entry whose partition id, window and allocator watermark were last
 *                            confirmed longer ago than this answers -1 until a commit confirms them (30 s)
 * @param skewSlackSeconds    clock-skew slack added on the safe side to hydration and expiry (5 s)
 * @param bookkeepingCap      soft cap on entries of the cooldown and footprint-hint maps (100,000)
 * @param maxBufferedCommits  commits remembered while a hydration is in flight; beyond, the entry
 *                            heals again after installing (256)
 * @param maxDeltaRows        a gap larger than this many offsets is healed by a full hydration
 *                            instead of a delta read (262,144)
 * @param retryMillis         after a failed hydration, the entry answers -1 this long before retrying (1 s)
 * @param maxConcurrentLoads  hydrations in flight at once (2): each holds a pooled connection while
 *                            it streams, so a cold start over many partitions must not starve pushes
 *                            of connections; a partition that finds no slot answers -1 and tries
 *                            again on its next push
 */
public record CacheSettings(long maxBytes, double fitRatio, long cooldownMillis, long recentUseMillis,
                            long warnIntervalMillis, long memoTtlMillis, int skewSlackSeconds, int bookkeepingCap,
                            int maxBufferedCommits, long maxDeltaRows, long retryMillis, int maxConcurrentLoads) {

    /** The default tunables (see the class note) with a cap of {@code maxMb} MiB. */
    public static CacheSettings defaults(long maxMb) {
        return new CacheSettings(maxMb * 1024L * 1024L, 0.9, 30_000, 5_000, 60_000, 30_000, 5, 100_000, 256,
                262_144, 1_000, 2);
    }

    /** These settings with another cap, in bytes. */
    public CacheSettings withMaxBytes(long bytes) {
        return new CacheSettings(bytes, fitRatio, cooldownMillis, recentUseMillis, warnIntervalMillis, memoTtlMillis,
                skewSlackSeconds, bookkeepingCap, maxBufferedCommits, maxDeltaRows, retryMillis, maxConcurrentLoads);
    }

    /** These settings with another soft cap for the bookkeeping maps. */
    public CacheSettings withBookkeepingCap(int cap) {
        return new CacheSettings(maxBytes, fitRatio, cooldownMillis, recentUseMillis, warnIntervalMillis, memoTtlMillis,
                skewSlackSeconds, cap, maxBufferedCommits, maxDeltaRows, retryMillis, maxConcurrentLoads);
    }

    /** These settings with another limit for delta heals. */
    public CacheSettings withMaxDeltaRows(long rows) {
        return new CacheSettings(maxBytes, fitRatio, cooldownMillis, recentUseMillis, warnIntervalMillis, memoTtlMillis,
                skewSlackSeconds, bookkeepingCap, maxBufferedCommits, rows, retryMillis, maxConcurrentLoads);
    }

    /** These settings with another limit on hydrations in flight. */
    public CacheSettings withMaxConcurrentLoads(int loads) {
        return new CacheSettings(maxBytes, fitRatio, cooldownMillis, recentUseMillis, warnIntervalMillis, memoTtlMillis,
                skewSlackSeconds, bookkeepingCap, maxBufferedCommits, maxDeltaRows, retryMillis, loads);
    }
}
