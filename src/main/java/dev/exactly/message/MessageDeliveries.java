package dev.exactly.message;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.List;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * GET /api/v1/messages/{messageId}/deliveries: where a message stands for each consumer group.
 *
 * @param messageId  the message
 * @param deliveries one per consumer group that reads its partition (a destination's is named
 *                   {@code destination:<name>}), by group name
 */
@RegisterForReflection
public record MessageDeliveries(UUID messageId, List<Group> deliveries) {

    /**
     * A consumer group's view of the message.
     *
     * @param consumerGroup the group
     * @param state         where the message stands for the group: {@code settled} (acked completed or, for a
     *                      consumer group, dead-lettered to the queue's .dlq; or passed over by a cursor moved
     *                      past it), {@code dead-lettered} (a destination gave up on it after its last attempt:
     *                      listed in its dead letters until a redrive delivers it), {@code before-start} (a
     *                      destination created after the message was stored: below the destination's start
     *                      offset in the partition, never sent to it; a replay lowers that start), {@code leased}
     *                      (being delivered under a live lease; a destination's: no attempt failed yet), {@code retrying} (its
     *                      last delivery ended unsettled, by a failed ack or an expired lease, or a destination's
     *                      attempts failed: to be delivered again) or {@code waiting} (not delivered yet)
     * @param attempts      the deliveries made so far, as pop's {@code attempts} and SQS's receive count (for a
     *                      destination, its attempts, as {@code Exactly-Attempt}): {@code leased} N while on delivery
     *                      N, {@code retrying} the deliveries made (a destination: those recorded, the one under
     *                      way included after the first), {@code dead-lettered} those it took, {@code waiting} and
     *                      {@code before-start} 0, {@code settled} those it took while the group still records
     *                      them (a consumer group's message acked ahead of its cursor); absent once the records
     *                      are gone (the cursor moved past it), and always for a destination's settled message
     * @param lastOutcome   the last ack's outcome; absent when none is recorded
     * @param lastError     the last ack's error, or the error a destination dead-lettered it with; absent when none
     * @param deadLetterId  the dead-letter copy it became; absent when none
     */
    @RegisterForReflection
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @Schema(name = "MessageDelivery")
    public record Group(String consumerGroup, String state, Integer attempts, String lastOutcome, String lastError,
                        UUID deadLetterId) {
    }
}
