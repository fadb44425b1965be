package dev.exactly.task;

import java.time.OffsetDateTime;

/**
 * A validated task to enqueue.
 *
 * @param queue             queue name ({@link dev.exactly.naming.Names#checkName})
 * @param taskId            the client's id, or null to have a UUIDv7 minted
 * @param type              task type, 1 to {@link TaskRequest#MAX_TYPE_BYTES} UTF-8 bytes
 * @param data              the data's JSON text, UTF-8, exactly as sent
 * @param dedupeKey         the 32-byte autoDedupe key ({@link DedupeKeys}), or null when autoDedupe is off
 * @param priority          higher is claimed first
 * @param runAt             not claimable before this instant; null = now
 * @param maxRetries        deliveries allowed after the first
 * @param retryDelaySeconds wait after a failure before the next delivery, in seconds
 * @param payloadDigest     the 32-byte digest of type and data as sent ({@link DedupeKeys#payloadDigest})
 */
public record NewTask(String queue, String taskId, String type, byte[] data, byte[] dedupeKey, int priority,
                      OffsetDateTime runAt, int maxRetries, int retryDelaySeconds, byte[] payloadDigest) {

    /** This task with its id set. */
    public NewTask withTaskId(String id) {
        return new NewTask(queue, id, type, data, dedupeKey, priority, runAt, maxRetries, retryDelaySeconds,
                payloadDigest);
    }
}
