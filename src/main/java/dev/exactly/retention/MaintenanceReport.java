package dev.exactly.retention;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * What one maintenance run did.
 *
 * @param partitions     partitions that had something to purge when the run started
 * @param steps          purge steps run (one transaction under one partition lock each)
 * @param purgedMessages message rows deleted (data older than the queue's retentionSeconds)
 * @param purgedHashes   transaction hashes deleted (below the data watermark and outside the
 *                       queue's deduplication window)
 * @param purgedTasks    finished (completed or dead) tasks deleted past their queue's task retention
 * @param purgedDuplicateBuckets minute buckets of duplicate counts deleted, that started before their
 *                       queue's deduplication window (no stats read them any more)
 * @param purgedWebhookMinutes minute rows of the webhook sources' figures deleted, past their kept history (7 days)
 * @param more           true when the run stopped at exactly.maintenance.max-steps with work left
 */
@RegisterForReflection
public record MaintenanceReport(int partitions, int steps, long purgedMessages, long purgedHashes, long purgedTasks,
                                long purgedDuplicateBuckets, long purgedWebhookMinutes, boolean more) {
}
