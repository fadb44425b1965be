package dev.exactly.consume;

import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * A message a pop leased, with its payload as stored (the bytes pushed, or a webhook's body).
 *
 * @param messageId      its id
 * @param transactionId  its idempotency key
 * @param queue          queue name
 * @param partition      partition name
 * @param partitionId    the partition's id
 * @param offset         its offset in the partition
 * @param payload        the stored payload bytes
 * @param contentType    a webhook body's media type, or null (a pushed JSON payload)
 * @param attempts       the number of this delivery of the message to the consumer group (1 the first time)
 * @param leaseId        the lease it was delivered under
 * @param leaseExpiresAt when the lease expires
 */
public record LeasedMessage(UUID messageId, String transactionId, String queue, String partition, long partitionId,
                            long offset, byte[] payload, String contentType, int attempts, UUID leaseId,
                            OffsetDateTime leaseExpiresAt) {
}
