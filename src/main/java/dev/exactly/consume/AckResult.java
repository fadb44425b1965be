package dev.exactly.consume;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.UUID;

/**
 * The answer to one ack.
 *
 * @param index               the item's position in the request (0-based)
 * @param result              "acked", "unresolved" (no stored message: never pushed, or its
 *                            data purged by retention, by messageId and by transactionId alike) or "lease-mismatch" (the
 *                            lease is not the group's current one on that partition, or did not
 *                            deliver the message)
 * @param queue               queue name
 * @param partition           partition name
 * @param offset              the message's offset, when resolved
 * @param messageId           the message's id, when resolved and its data still stored
 * @param transactionId       the message's idempotency key, likewise
 * @param outcome             for "acked": "completed", "retry" (delivered again after the
 *                            queue's retryDelay), "dead-lettered", or "settled" (a replay whose
 *                            record was already cleaned up)
 * @param attempts            deliveries of the message to the group so far, the acked one included
 * @param deadLetterMessageId the copy's id in the dead-letter queue ({@link DeadLetters#queueOf}), when dead-lettered
 *                            (null if the original's data had been purged: nothing to copy)
 * @param replay              true when the same lease had already acked this message (an
 *                            idempotent repeat: nothing changed)
 * @param detail              why, for an error
 */
@RegisterForReflection
@JsonInclude(JsonInclude.Include.NON_NULL)
public record AckResult(int index, String result, String queue, String partition, Long offset, UUID messageId,
                        String transactionId, String outcome, Integer attempts, UUID deadLetterMessageId,
                        Boolean replay, String detail) {

    /** Result of a successful ack. */
    public static final String ACKED = "acked";
    /** Result of an ack whose message or transaction hash is not stored. */
    public static final String UNRESOLVED = "unresolved";
    /** Result of an ack whose lease does not hold the message. */
    public static final String LEASE_MISMATCH = "lease-mismatch";

    /** True when the ack took effect (or repeated one that did). */
    public boolean acked() {
        return ACKED.equals(result);
    }
}
