package dev.exactly.engine;

import java.util.List;

/**
 * A warm instance's dedup cache. Its one load-bearing output is the p_verified watermark sent
 * with a segment: "none of these hashes occurs at or below this offset". It may only ever
 * narrow the store's probe; it never decides a verdict. {@code -1} (probe the whole window) is
 * always a sound answer.
 */
public interface DedupCache {

    /** Sent when the cache cannot vouch: the store probes the whole window. */
    long PROBE_ALL = -1L;

    /**
     * @param partition the segment's partition
     * @param items     the segment's leader items (their hashes)
     * @return the offset the cache vouches for, or {@link #PROBE_ALL}
     */
    long verifiedWatermark(PartitionKey partition, List<PushItem> items);

    /**
     * Told after the store committed a segment.
     *
     * @param partition the segment's partition
     * @param items     the segment's items
     * @param outcome   the store's outcome for them
     */
    void committed(PartitionKey partition, List<PushItem> items, SegmentOutcome outcome);

    /** The cache of a stateless function instance: never vouches, remembers nothing. */
    DedupCache DISABLED = new DedupCache() {
        @Override
        public long verifiedWatermark(PartitionKey partition, List<PushItem> items) {
            return PROBE_ALL;
        }

        @Override
        public void committed(PartitionKey partition, List<PushItem> items, SegmentOutcome outcome) {
        }
    };
}
