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
 * @param deliveries one per consumer group that reads its partition, by group name
 */
@RegisterForReflection
public record MessageDeliveries(UUID messageId, List<Group> deliveries) {

    /**
     * A consumer group's view of the message.
     *
     * @param consumerGroup the group
     * @param state         settled (acked completed or dead-lettered), leased (delivered under a live
     *                      lease), retrying (a failed ack: delivered again) or waiting (not delivered yet)
     * @param attempts      failed attempts recorded (0 when none)
     * @param lastOutcome   the last ack's outcome; absent when none is recorded
     * @param lastError     the last ack's error; absent when none
     * @param deadLetterId  the dead-letter copy it became; absent when none
     */
    @RegisterForReflection
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @Schema(name = "MessageDelivery")
    public record Group(String consumerGroup, String state, int attempts, String lastOutcome, String lastError,
                        UUID deadLetterId) {
    }
}
