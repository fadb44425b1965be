package dev.exactly.task;

import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.List;

/**
 * The answer to a batch enqueue.
 *
 * @param results one verdict per task, in request order
 */
@RegisterForReflection
public record BatchResponse(List<EnqueueResult> results) {
}
