package dev.exactly.redrive;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonRawValue;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * One page of GET /api/v1/queues/{queue}/dead-letters: a queue's dead letters, read without a pop.
 *
 * @param queue           the origin queue
 * @param deadLetterQueue its dead-letter queue
 * @param deadLetters     the copies, by partition and offset
 * @param next            the cursor to pass as {@code after} for the next page; absent on the last page
 */
@RegisterForReflection
@JsonInclude(JsonInclude.Include.NON_NULL)
public record DeadLetterPage(String queue, String deadLetterQueue, List<Entry> deadLetters, String next) {

    /**
     * A dead-letter copy.
     *
     * @param messageId    the copy's message id (what a redrive by id names; its payload and headers are
     *                     read with GET /api/v1/messages/{messageId})
     * @param partition    its partition (named like its origin's)
     * @param offset       its offset there
     * @param createdAt    when it was dead-lettered
     * @param payloadBytes its payload's size
     * @param origin       its x-exactly-dead-letter header: the origin queue, partition, offset,
     *                     messageId, transactionId, consumerGroup, attempts, status, error, deadLetteredAt
     * @param redrivenTo   the message its redrive stored in the origin queue; absent when not redriven
     * @param redrivenAt   when it was redriven; absent when not
     */
    @RegisterForReflection
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @Schema(name = "DeadLetterEntry")
    public record Entry(UUID messageId, String partition, long offset, OffsetDateTime createdAt, int payloadBytes,
                        @JsonRawValue @Schema(ref = "AnyJson") String origin, UUID redrivenTo, OffsetDateTime redrivenAt) {
    }
}
