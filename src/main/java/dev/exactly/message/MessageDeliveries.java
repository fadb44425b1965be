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
     *                      offset in the partition, never sent to it; a replay lowers that start), {@code leased} (delivered under a live lease, no attempt failed yet),
     *                      {@code retrying} (a failed ack or failed attempts: to be delivered again) or
     *                      {@code waiting} (not delivered yet)
     * @param attempts      failed attempts recorded (0 when none); for a destination, the attempts it recorded for
     *                      the message: those that failed, and the one under way after the first
     * @param lastOutcome   the last ack's outcome; absent when none is recorded
     * @param lastError     the last ack's error, or the error a destination dead-lettered it with; absent when none
     * @param deadLetterId  the dead-letter copy it became; absent when none
     */
    @RegisterForReflection
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @Schema(name = "MessageDelivery")
    public record Group(String consumerGroup, String state, int attempts, String lastOutcome, String lastError,
                        UUID deadLetterId) {
    }
}
