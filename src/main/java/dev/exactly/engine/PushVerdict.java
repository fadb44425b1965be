package dev.exactly.engine;

import java.util.UUID;

/**
 * The exact verdict for one pushed item.
 *
 * @param index         the item's position in the request (0-based)
 * @param queue         queue name
 * @param partition     partition name
 * @param transactionId the idempotency key (the message id when none was given)
 * @param messageId     the stored message's id; for a duplicate the ORIGINAL message's id (the
 *                      lowest offset in the window), or the zero UUID if its data was purged
 * @param status        queued, duplicate, or rejected (a duplicate whose payload differs, in a queue
 *                      whose payloadMismatch option is "reject")
 * @param offset        the message's offset in its partition (the original's for a duplicate)
 * @param payloadMatches for a duplicate or a rejected item: whether its payload's bytes equal the
 *                      original's ({@link PayloadDigest}); null when queued, or when it is not
 *                      known (the original's data was purged, or it was stored without a digest)
 * @param storedBy      for an item repeating an earlier item of the same request that this request
 *                      stores (layer 1: the original is not stored before, but by that item): the
 *                      earlier item's index; null otherwise
 */
public record PushVerdict(int index, String queue, String partition, String transactionId, UUID messageId,
                          PushStatus status, long offset, Boolean payloadMatches, Integer storedBy) {

    /** The id a duplicate reports when the original's data was already purged by retention. */
    public static final UUID PURGED = new UUID(0L, 0L);

    /** A verdict without a payload comparison (queued, or a duplicate of unknown payload). */
    public PushVerdict(int index, String queue, String partition, String transactionId, UUID messageId,
                       PushStatus status, long offset) {
        this(index, queue, partition, transactionId, messageId, status, offset, null, null);
    }

    /** A verdict from the store (not a follower of layer 1). */
    public PushVerdict(int index, String queue, String partition, String transactionId, UUID messageId,
                       PushStatus status, long offset, Boolean payloadMatches) {
        this(index, queue, partition, transactionId, messageId, status, offset, payloadMatches, null);
    }

    /**
     * This verdict, re-addressed to a follower item that inherits it as a duplicate (or as
     * rejected, when its own payload differs and the queue rejects mismatches).
     *
     * @param followerIndex  the follower's index in the request
     * @param payloadMatches the follower's payload against the original's (null: unknown)
     * @param reject         true when the queue's payloadMismatch option is "reject"
     * @return the follower's verdict; {@link #storedBy} names this item when this request stored it
     */
    PushVerdict inheritedBy(int followerIndex, Boolean payloadMatches, boolean reject) {
        PushStatus s = reject && Boolean.FALSE.equals(payloadMatches) ? PushStatus.REJECTED : PushStatus.DUPLICATE;
        return new PushVerdict(followerIndex, queue, partition, transactionId, messageId, s, offset, payloadMatches,
                status == PushStatus.QUEUED ? Integer.valueOf(index) : storedBy);
    }
}
