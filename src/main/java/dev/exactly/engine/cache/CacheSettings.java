package dev.exactly.engine.cache;

/**
 * Tunables of {@link WarmDedupCache}. The engine has no defaults of its own: the application fills
 * these in from its configuration ({@code exactly.dedup-cache.*}, where each default is stated
 * with its source), so each value has one source.
 *
 * @param maxBytes            memory cap for resident hashes and their bookkeeping, in bytes (positive)
 * @param fitRatio            a full rehydration is admitted only if the cache stays under this
 *                            fraction of the cap (hysteresis), in (0, 1]
 * @param cooldownMillis      how long a partition that failed admission answers -1 before it is
 *                            tested again, in milliseconds
 * @param recentUseMillis     a partition used this recently (milliseconds) is never evicted to
 *                            admit another
 * @param warnIntervalMillis  at most one pressure warning per this interval (milliseconds), process-wide
 * @param memoTtlMillis       an entry whose partition id, window and allocator watermark were last
 *                            confirmed longer ago than this (milliseconds) answers -1 until a
 *                            commit confirms them
 * @param skewSlackSeconds    clock-skew slack added on the safe side to hydration and expiry, in seconds
 * @param bookkeepingCap      soft cap on entries of the cooldown and footprint-hint maps (positive)
 * @param maxBufferedCommits  commits remembered while a hydration is in flight; beyond, the entry
 *                            heals again after installing
 * @param maxDeltaRows        a gap larger than this many offsets is healed by a full hydration
 *                            instead of a delta read
 * @param retryMillis         after a failed hydration, the entry answers -1 this long (milliseconds)
 *                            before retrying
 * @param maxConcurrentLoads  hydrations in flight at once (at least 1): each holds a pooled
 *                            connection while it streams, so a cold start over many partitions
 *                            must not starve pushes of connections; a partition that finds no slot
 *                            answers -1 and tries again on its next push
 */
public record CacheSettings(long maxBytes, double fitRatio, long cooldownMillis, long recentUseMillis,
                            long warnIntervalMillis, long memoTtlMillis, int skewSlackSeconds, int bookkeepingCap,
                            int maxBufferedCommits, long maxDeltaRows, long retryMillis, int maxConcurrentLoads) {

    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException naming the first value out of its range
     */
    public CacheSettings {
        require(maxBytes > 0, "maxBytes must be positive", maxBytes);
        require(fitRatio > 0 && fitRatio <= 1, "fitRatio must be in (0, 1]", fitRatio);
        require(cooldownMillis >= 0, "cooldownMillis must not be negative", cooldownMillis);
        require(recentUseMillis >= 0, "recentUseMillis must not be negative", recentUseMillis);
        require(warnIntervalMillis >= 0, "warnIntervalMillis must not be negative", warnIntervalMillis);
        require(memoTtlMillis >= 0, "memoTtlMillis must not be negative", memoTtlMillis);
        require(skewSlackSeconds >= 0, "skewSlackSeconds must not be negative", skewSlackSeconds);
        require(bookkeepingCap > 0, "bookkeepingCap must be positive", bookkeepingCap);
        require(maxBufferedCommits >= 0, "maxBufferedCommits must not be negative", maxBufferedCommits);
        require(maxDeltaRows >= 0, "maxDeltaRows must not be negative", maxDeltaRows);
        require(retryMillis >= 0, "retryMillis must not be negative", retryMillis);
        require(maxConcurrentLoads >= 1, "maxConcurrentLoads must be at least 1", maxConcurrentLoads);
    }

    private static void require(boolean ok, String rule, Object value) {
        if (!ok) {
            throw new IllegalArgumentException(rule + ", got " + value);
        }
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
