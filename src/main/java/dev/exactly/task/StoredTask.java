package dev.exactly.task;

import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * A task as stored.
 *
 * @param queue             queue name
 * @param taskId            its id, unique in the queue
 * @param type              task type
 * @param data              the data's JSON text, UTF-8, as enqueued
 * @param dedupeKey         32-byte autoDedupe key, or null
 * @param state             stored state: queued, running, retrying, completed or dead
 * @param label             the state a client sees: the stored one, or "scheduled" for a queued
 *                          task whose runAt lies ahead
 * @param priority          higher first
 * @param runAt             not claimable before
 * @param maxRetries        deliveries allowed after the first
 * @param retryDelaySeconds wait after a failure, in seconds
 * @param attempts          deliveries so far (claims)
 * @param leaseId           the current lease, while running
 * @param leaseExpiresAt    when the current lease ends, while running
 * @param leaseExpired      true when running and the lease has ended (by the database clock)
 * @param lastError         the last failure's error, or "lease expired"
 * @param result            JSON given on completion, UTF-8, or null
 * @param createdAt         enqueue time
 * @param updatedAt         last change
 * @param finishedAt        when it completed or died
 * @param settledLease      the lease under which it was last completed or failed (by which a
 *                          retried completion or failure is recognised), or null
 */
public record StoredTask(String queue, String taskId, String type, byte[] data, byte[] dedupeKey, String state,
                         String label, int priority, OffsetDateTime runAt, int maxRetries, int retryDelaySeconds,
                         int attempts, UUID leaseId, OffsetDateTime leaseExpiresAt, boolean leaseExpired,
                         String lastError, byte[] result, OffsetDateTime createdAt, OffsetDateTime updatedAt,
                         OffsetDateTime finishedAt, UUID settledLease) {
}
