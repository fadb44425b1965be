package dev.exactly.task;

import java.util.List;

/**
 * The answer to a batch enqueue.
 *
 * @param results one verdict per task, in request order
 */
public record BatchResponse(List<EnqueueResult> results) {
}
