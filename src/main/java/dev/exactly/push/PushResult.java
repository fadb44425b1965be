package dev.exactly.push;

import dev.exactly.engine.PushVerdict;
import java.util.UUID;

/**
 * One item's verdict on the wire.
 *
 * @param index         the item's position in the request
 * @param queue         queue name
 * @param partition     partition name
 * @param transactionId the idempotency key (the message id when none was given)
 * @param messageId     the stored message's id, or the original's for a duplicate
 * @param status        "queued" or "duplicate"
 */
public record PushResult(int index, String queue, String partition, String transactionId, UUID messageId,
                         String status) {

    static PushResult of(PushVerdict v) {
        return new PushResult(v.index(), v.queue(), v.partition(), v.transactionId(), v.messageId(), v.status().wire());
    }
}
