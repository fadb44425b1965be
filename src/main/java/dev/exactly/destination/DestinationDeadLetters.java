package dev.exactly.destination;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * One page of GET /api/v1/queues/{queue}/destinations/{name}/dead-letters: the messages the
 * destination gave up on (exactly.destination_dead_letters), oldest first.
 *
 * @param queue       the destination's queue
 * @param destination the destination
 * @param deadLetters its dead letters, by the time they were dead-lettered, then partition and offset
 * @param next        the cursor to pass as {@code after} for the next page; absent on the last page
 */
@RegisterForReflection
@JsonInclude(JsonInclude.Include.NON_NULL)
public record DestinationDeadLetters(String queue, String destination, List<Entry> deadLetters, String next) {

    /**
     * A message the destination dead-lettered.
     *
     * @param messageId          the message's id (what a redrive by {@code messageIds} names)
     * @param transactionId      its transactionId; absent when retention purged the message
     * @param partition          its partition; absent when the partition no longer exists
     * @param offset             its offset in that partition
     * @param attempts           the failed attempts before it was dead-lettered
     * @param error              the last attempt's error
     * @param deadLetteredAt     when it was dead-lettered (again, after a redrive that failed)
     * @param redriveRequestedAt when a redrive asked for it to be sent again; absent when none is under way
     */
    @RegisterForReflection
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @Schema(name = "DestinationDeadLetter")
    public record Entry(UUID messageId, String transactionId, String partition, long offset, int attempts, String error,
                        OffsetDateTime deadLetteredAt, OffsetDateTime redriveRequestedAt) {
    }
}
