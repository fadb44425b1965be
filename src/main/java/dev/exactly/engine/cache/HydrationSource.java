package dev.exactly.engine.cache;

import dev.exactly.engine.PartitionKey;
import io.smallrye.mutiny.Uni;

/**
 * Where {@link WarmDedupCache} reads a partition's hashes from: the database
 * ({@link TxnHashRepository}). Both reads first resolve the partition and its allocator watermark
 * {@code L} in one statement, then stream rows at or below {@code L} in offset order, so the
 * content is complete for every offset up to {@code L}.
 */
public interface HydrationSource {

    /** Receives hydrated rows. */
    @FunctionalInterface
    interface RowSink {
        /**
         * @param offset    the row's offset
         * @param hi        high 64 bits of its hash
         * @param lo        low 64 bits
         * @param ageMillis how long before the read's database time the row was stored (≥ 0 normally)
         * @return false to stop reading (the snapshot is then reported incomplete)
         */
        boolean accept(long offset, long hi, long lo, long ageMillis);
    }

    /**
     * What a read found.
     *
     * @param windowSeconds the queue's deduplication window, or -1 when the queue does not exist
     * @param partitionId   the partition's id, or -1 when it does not exist
     * @param lastOffset    the allocator watermark L the rows are complete up to (-1 if none)
     * @param complete      false when the read could not prove it delivered every row in range
     *                      (stopped by the sink, a gap too large, purged data, a changed window)
     */
    record Snapshot(int windowSeconds, long partitionId, long lastOffset, boolean complete) {
    }

    /**
     * Full-window hydration: every stored hash of the partition with offset ≤ L and stored within
     * the window plus {@code slackSeconds}.
     *
     * @param key          the partition
     * @param slackSeconds extra seconds of history on the safe side (clock skew)
     * @param sink         receives the rows in offset order
     */
    Uni<Snapshot> fullWindow(PartitionKey key, int slackSeconds, RowSink sink);

    /**
     * Delta read (heals an interleave gap): every stored hash with {@code after} &lt; offset ≤ L.
     * Incomplete when the window is no longer {@code expectedWindow}, when L - after exceeds
     * {@code maxRows}, or when a row in the range is missing.
     *
     * @param key            the partition
     * @param after          the cache's verified watermark
     * @param expectedWindow the window the entry's content was built under
     * @param maxRows        largest gap to read this way
     * @param sink           receives the rows in offset order
     */
    Uni<Snapshot> delta(PartitionKey key, long after, int expectedWindow, long maxRows, RowSink sink);
}
