package dev.exactly.consume;

import dev.exactly.http.Checked;
import dev.exactly.naming.Key;
import dev.exactly.naming.Name;
import dev.exactly.naming.Names;
import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.validation.constraints.NotNull;
import java.util.UUID;
import java.util.function.BiConsumer;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * One ack, the body of POST /api/v1/ack (and an item of an ack batch):
 * {@code {"leaseId","transactionId"|"messageId","status","queue"?,"partition"?,"consumerGroup"?,"error"?}}.
 * Exactly one of {@code transactionId} and {@code messageId} is given; with a transactionId the queue is
 * required.
 *
 * @param queue         queue name; required with transactionId, optional (then checked) with messageId
 * @param partition     partition name, or null when the ack names none: with messageId the message's own;
 *                      with transactionId the database finds it (exactly.ack_partition_name in
 *                      sql/R__consume.sql: the key's partition on a queue that spreads by key, else the
 *                      partition of the lease the ack names, else "Default")
 * @param consumerGroup the consumer group ("__default" when none was given)
 * @param leaseId       the lease the message was delivered under (from pop)
 * @param transactionId ack by idempotency key: resolved through the partition's stored
 *                      transaction hashes (XXH3-128), or null
 * @param messageId     ack by message id, or null
 * @param status        what the consumer says
 * @param error         the consumer's error text for failed/retry/dlq (at most {@value #MAX_ERROR_BYTES}
 *                      UTF-8 bytes), or null
 */
@RegisterForReflection
@Checked
@Schema(ref = "AckRequest") // its schema, in META-INF/openapi.yaml
public record AckCommand(@Name String queue, @Name String partition, @Name String consumerGroup,
                         @NotNull(message = "is required (the pop's leaseId)") UUID leaseId,
                         @Key(maxBytes = Names.MAX_TRANSACTION_ID_BYTES) String transactionId, UUID messageId,
                         @NotNull(message = "is required: completed, failed, retry or dlq") AckStatus status,
                         @Key(maxBytes = AckCommand.MAX_ERROR_BYTES) String error) implements Checked.Rules {

    /** Longest error text an ack may carry, in UTF-8 bytes. */
    public static final int MAX_ERROR_BYTES = 4096;

    /** An ack that names no consumer group is the default group's. */
    public AckCommand {
        consumerGroup = consumerGroup == null ? PopRequest.DEFAULT_GROUP : consumerGroup;
    }

    @Override
    public void check(BiConsumer<String, String> broken) {
        rules(queue, transactionId, messageId, broken);
    }

    /** The rules across an ack's fields, also a transaction's ack operation's. */
    public static void rules(String queue, String transactionId, UUID messageId, BiConsumer<String, String> broken) {
        if ((transactionId == null) == (messageId == null)) {
            broken.accept(transactionId != null ? "messageId" : "transactionId", "give exactly one of transactionId and messageId");
        }
        if (transactionId != null && queue == null) {
            broken.accept("queue", "is required to ack by transactionId");
        }
    }
}
