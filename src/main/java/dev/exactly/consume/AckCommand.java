package dev.exactly.consume;

import java.util.UUID;

/**
 * One validated ack. Exactly one of {@code transactionId} and {@code messageId} is set.
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
 * @param error         the consumer's error text for failed/retry/dlq, or null
 */
public record AckCommand(String queue, String partition, String consumerGroup, UUID leaseId, String transactionId,
                         UUID messageId, AckStatus status, String error) {
}
