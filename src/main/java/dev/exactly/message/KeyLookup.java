package dev.exactly.message;

import io.quarkus.runtime.annotations.RegisterForReflection;
import java.time.OffsetDateTime;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * GET /api/v1/messages?queue=&amp;transactionId=: the messages stored under a key, and why a push
 * of that key is answered {@code duplicate}.
 *
 * @param queue         queue name
 * @param transactionId the key
 * @param messages      the messages stored under it, oldest first (more than one only when the key
 *                      was pushed again after its window had passed); empty when none is stored
 */
@RegisterForReflection
public record KeyLookup(String queue, String transactionId, List<Stored> messages) {

    /**
     * One stored message under the key: the original a duplicate answer points to.
     *
     * @param message          the message (its messageId is the one a duplicate answer carries)
     * @param storedAt         when it was stored
     * @param windowSeconds    the queue's deduplication window now
     * @param duplicatesUntil  until when a push of the same key into its partition is answered
     *                         duplicate of it: storedAt plus the window
     */
    @RegisterForReflection
    @Schema(name = "KeyLookupMessage")
    public record Stored(MessageView message, OffsetDateTime storedAt, int windowSeconds, OffsetDateTime duplicatesUntil) {
    }
}
