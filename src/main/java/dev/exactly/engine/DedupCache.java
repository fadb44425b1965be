package dev.exactly.engine;

import java.util.List;

/**
 * A warm instance's dedup cache. Its one load-bearing output is the {@link ProbeBound} sent with
 * a segment: "none of these hashes occurs at or below this offset". It may only ever narrow the
 * store's probe; it never decides a verdict. {@link ProbeBound#PROBE_ALL} (probe the whole window)
 * is always a sound answer, so a disabled cache ({@link #DISABLED}) is exactly equivalent to one
 * that never vouches: the verdict is computed by the store under the partition's row lock either
 * way, and a cache can only save probe work. (The rule is the one the Queen message queue's
 * documentation states for its broker cache: "Deduplication", section "The broker cache, and what
 * it is allowed to do".)
 *
 * <p>Implementations never block: work they need from the database (hydration) runs in the
 * background, and they answer {@link ProbeBound#PROBE_ALL} meanwhile.
 */
public interface DedupCache {

    /** The watermark that vouches for nothing: the store probes the whole window. */
    long PROBE_ALL = -1L;

    /**
     * The bound to send with a segment.
     *
     * @param partition the segment's partition
     * @param items     the segment's leader items (their hashes)
     * @return the bound the cache vouches for, or {@link ProbeBound#PROBE_ALL}
     */
    ProbeBound bound(PartitionKey partition, List<PushItem> items);

    /**
     * Told after the store committed a segment (in the order the segments of one partition were
     * committed, when the caller can guarantee it; out-of-order notices only cost rebuilds).
     *
     * @param partition the segment's partition
     * @param items     the segment's items, in the order the store answered them
     * @param outcome   the store's outcome for them
     */
    void committed(PartitionKey partition, List<PushItem> items, SegmentOutcome outcome);

    /**
     * Told when a queue's options were changed through this process (/configure, PATCH): every
     * partition of the queue rebuilds fully before it vouches again, because its expiry
     * bookkeeping was computed under the old window.
     *
     * @param queue the queue name
     */
    default void queueReconfigured(String queue) {
    }

    /** The cache of a stateless function instance: never vouches, remembers nothing. */
    DedupCache DISABLED = new DedupCache() {
        @Override
        public ProbeBound bound(PartitionKey partition, List<PushItem> items) {
            return ProbeBound.PROBE_ALL;
        }

        @Override
        public void committed(PartitionKey partition, List<PushItem> items, SegmentOutcome outcome) {
        }

        @Override
        public String toString() {
            return "DedupCache.DISABLED";
        }
    };
}
