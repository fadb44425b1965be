package dev.exactly.engine.cache;

/**
 * A point-in-time view of {@link WarmDedupCache}, for metrics and tests. Counters are totals
 * since the cache was created.
 *
 * @param residentBytes        accounted bytes of every resident entry (hashes and bookkeeping)
 * @param residentHashes       hashes resident over all partitions
 * @param partitions           resident partition entries
 * @param suppressedPartitions partitions serving a suppression cooldown now
 * @param narrowedProbes       segments sent with a vouched watermark (the probe narrowed)
 * @param fullProbes           segments sent with -1 (the whole window probed)
 * @param localHits            segments routed to a full probe because a hash was resident
 * @param fullHydrations       completed full-window hydrations
 * @param deltaHydrations      completed delta reads healing an interleave gap
 * @param failedHydrations     hydrations that failed or could not prove completeness
 * @param evictions            entries evicted (LRU or suppression)
 * @param suppressions         times a partition was suppressed (admission refused or too large)
 * @param warnings             memory-pressure warnings logged (at most one per interval)
 * @param expiredHashes        hashes dropped by block-granular expiry
 */
public record CacheStats(long residentBytes, long residentHashes, int partitions, int suppressedPartitions,
                         long narrowedProbes, long fullProbes, long localHits, long fullHydrations,
                         long deltaHydrations, long failedHydrations, long evictions, long suppressions,
                         long warnings, long expiredHashes) {

    /** @return accounted bytes per resident hash, or 0 when nothing is resident */
    public double bytesPerHash() {
        return residentHashes == 0 ? 0.0 : (double) residentBytes / residentHashes;
    }
}
