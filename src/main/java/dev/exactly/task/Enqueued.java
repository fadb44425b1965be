package dev.exactly.task;

/**
 * The outcome of enqueueing one task.
 *
 * @param queue     queue name
 * @param taskId    the task that stands for the request: the new one, or the existing one it duplicates
 * @param duplicate true when nothing was written because {@code taskId} already stands for it
 * @param matchedOn for a duplicate, what matched: "id" (same client id in the queue) or
 *                  "autoDedupe" (same key as a pending task); null when enqueued
 */
public record Enqueued(String queue, String taskId, boolean duplicate, String matchedOn) {
}
