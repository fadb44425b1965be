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
 * @param status        queued or duplicate
 * @param offset        the message's offset in its partition (the original's for a duplicate)
 */
public record PushVerdict(int index, String queue, String partition, String transactionId, UUID messageId,
                          PushStatus status, long offset) {

    /** The id a duplicate reports when the original's data was already purged by retention. */
    public static final UUID PURGED = new UUID(0L, 0L);

    /** This verdict, re-addressed to a follower item that inherits it as a duplicate. */
    PushVerdict inheritedBy(int followerIndex) {
        return new PushVerdict(followerIndex, queue, partition, transactionId, messageId, PushStatus.DUPLICATE, offset);
    }
}
