package dev.exactly.task;

/**
 * The outcome of enqueueing one task.
 *
 * @param queue     queue name
 * @param taskId    the task that stands for the request: the new one, or the existing one it duplicates
 * @param duplicate true when nothing was written because {@code taskId} already stands for it
 * @param matchedOn for a duplicate, what matched: "id" (same client id in the queue) or
 *                  "autoDedupe" (same key as a pending task); null when enqueued
 * @param payloadMatches for a duplicate by id: whether the existing task's type and data bytes equal
 *                  this request's; null otherwise, or when not known (a task enqueued before
 *                  payload digests were kept)
 */
public record Enqueued(String queue, String taskId, boolean duplicate, String matchedOn, Boolean payloadMatches) {
}
