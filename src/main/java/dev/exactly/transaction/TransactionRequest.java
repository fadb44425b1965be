package dev.exactly.transaction;

import dev.exactly.consume.AckCommand;
import dev.exactly.consume.AckStatus;
import dev.exactly.http.Checked;
import dev.exactly.naming.Key;
import dev.exactly.naming.Name;
import dev.exactly.naming.Names;
import dev.exactly.push.PushRequest;
import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.util.List;
import java.util.UUID;
import java.util.function.BiConsumer;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * The body of a transaction, {@code {"operations":[{"type":"push","items":[…]}, {"type":"ack", …ack fields}]}}:
 * 1 to {@value #MAX_OPERATIONS} operations. Push items follow the push API's rules (their payloads
 * kept as the exact bytes of the body), an ack's fields the ack API's. Errors name the field by its
 * path: {@code operations[i].items[j].field}, {@code operations[i].field}.
 *
 * @param operations the operations, in request order
 */
@RegisterForReflection
@Schema(name = "TransactionRequestRecord", ref = "TransactionRequest") // its schema, in META-INF/openapi.yaml
public record TransactionRequest(
        @NotNull(message = "is required")
        @Size(min = 1, max = MAX_OPERATIONS, message = "must hold 1 to " + MAX_OPERATIONS + " operations")
        List<@NotNull(message = "an operation must be a JSON object") @Valid Operation> operations) {

    /** Most operations in one transaction. */
    public static final int MAX_OPERATIONS = 1000;

    /** @return the operations as the service runs them */
    public List<TransactionOperation> commands() {
        return operations.stream().map(o -> "push".equals(o.type())
                ? (TransactionOperation) new TransactionOperation.Push(o.items().stream().map(PushRequest.Item::command).toList())
                : new TransactionOperation.Ack(o.ack())).toList();
    }

    /**
     * One operation: {@code type} push with {@code items}, or {@code type} ack with the fields of an
     * ack ({@link AckCommand}); a field of the other type is unknown.
     *
     * @param type          "push" or "ack"
     * @param items         a push's items
     * @param queue         an ack's queue
     * @param partition     an ack's partition
     * @param consumerGroup an ack's consumer group
     * @param leaseId       an ack's lease
     * @param transactionId an ack's key
     * @param messageId     an ack's message id
     * @param status        an ack's status
     * @param error         an ack's error text
     */
    @RegisterForReflection
    @Checked
    public record Operation(String type, List<PushRequest.@NotNull(message = "an item must be a JSON object") @Valid Item> items,
                            @Name String queue, @Name String partition, @Name String consumerGroup, UUID leaseId,
                            @Key(maxBytes = Names.MAX_TRANSACTION_ID_BYTES) String transactionId, UUID messageId,
                            AckStatus status, @Key(maxBytes = AckCommand.MAX_ERROR_BYTES) String error)
            implements Checked.Rules {

        @Override
        public void check(BiConsumer<String, String> broken) {
            if ("push".equals(type)) {
                if (items == null) {
                    broken.accept("items", "is required for a push");
                }
                Object[] ackFields = {queue, partition, consumerGroup, leaseId, transactionId, messageId, status, error};
                String[] names = {"queue", "partition", "consumerGroup", "leaseId", "transactionId", "messageId", "status", "error"};
                for (int i = 0; i < names.length; i++) {
                    if (ackFields[i] != null) {
                        broken.accept(names[i], "unknown field for a push");
                    }
                }
            } else if ("ack".equals(type)) {
                if (items != null) {
                    broken.accept("items", "unknown field for an ack");
                }
                if (leaseId == null) {
                    broken.accept("leaseId", "is required (the pop's leaseId)");
                }
                if (status == null) {
                    broken.accept("status", "is required: completed, failed, retry or dlq");
                }
                AckCommand.rules(queue, transactionId, messageId, broken);
            } else {
                broken.accept("type", type == null ? "is required: \"push\" or \"ack\"" : "must be \"push\" or \"ack\"");
            }
        }

        /** @return this ack operation's ack */
        AckCommand ack() {
            return new AckCommand(queue, partition, consumerGroup, leaseId, transactionId, messageId, status, error);
        }
    }
}
