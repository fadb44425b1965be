package dev.exactly.consume;

import io.quarkus.runtime.annotations.RegisterForReflection;
import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * A pop lease after an extension (POST /api/v1/pop/extend): the partition it holds for its
 * consumer group, the offsets it delivered, and when it now ends.
 *
 * @param leaseId        the lease (unchanged by an extension: ack with it as before)
 * @param queue          queue name
 * @param partition      partition name
 * @param consumerGroup  the consumer group holding the partition under it
 * @param fromOffset     first offset of the range the lease covers
 * @param toOffset       last offset of that range (inclusive)
 * @param leaseExpiresAt when the lease now ends; its unacked messages are delivered again after
 */
@RegisterForReflection
public record PopLease(UUID leaseId, String queue, String partition, String consumerGroup, long fromOffset,
                       long toOffset, OffsetDateTime leaseExpiresAt) {
}
