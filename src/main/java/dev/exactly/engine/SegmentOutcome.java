package dev.exactly.engine;

import java.util.UUID;

/**
 * What the store decided for one segment, under the partition's row lock.
 *
 * @param partitionId      the partition's id in the database
 * @param prevLastOffset   the allocator watermark found under the lock, before this segment
 *                         (-1 for an empty partition); new offsets start at prevLastOffset + 1
 * @param windowSeconds    the deduplication window that was applied, in seconds (0 = no probe)
 * @param offsets          per item (segment order): new offset, or the original's for a duplicate
 * @param messageIds       per item: the new id, or the original's (zero UUID if purged)
 * @param duplicate        per item: true when the store found the transaction hash in the window
 * @param originalDigests  per item: for a duplicate, the payload digest of the message it duplicates
 *                         ({@link PayloadDigest}; null when not known: its data was purged, or it was
 *                         stored without one); null for a stored item
 * @param rejectMismatch   true when the queue's payloadMismatch option is "reject" (read by the
 *                         store with the window)
 */
public record SegmentOutcome(long partitionId, long prevLastOffset, int windowSeconds, long[] offsets,
                             UUID[] messageIds, boolean[] duplicate, byte[][] originalDigests,
                             boolean rejectMismatch) {

    /** An outcome that knows no original's digest (every comparison unknown), mismatches reported. */
    public SegmentOutcome(long partitionId, long prevLastOffset, int windowSeconds, long[] offsets,
                          UUID[] messageIds, boolean[] duplicate) {
        this(partitionId, prevLastOffset, windowSeconds, offsets, messageIds, duplicate,
                new byte[duplicate.length][], false);
    }

    /** Number of items this segment stored (non-duplicates). */
    public int stored() {
        int k = 0;
        for (boolean d : duplicate) {
            if (!d) {
                k++;
            }
        }
        return k;
    }
}
