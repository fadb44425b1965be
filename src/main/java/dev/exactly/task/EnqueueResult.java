package dev.exactly.task;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * One task's enqueue verdict on the wire.
 *
 * @param index       position in a batch request (absent for a single enqueue)
 * @param status      "enqueued" or "duplicate"
 * @param queue       queue name
 * @param taskId      the task that stands for the request: the new one, or the pending (or, for
 *                    a repeated id, existing) task it duplicates
 * @param duplicateOf for a duplicate: the existing task's id (equal to taskId); absent otherwise
 * @param matchedOn   for a duplicate: "id" or "autoDedupe"
 * @param payloadMatches for a duplicate matched on "id": whether the existing task has the same type
 *                    and data bytes; absent otherwise or when not known
 */
@RegisterForReflection
@JsonInclude(JsonInclude.Include.NON_NULL)
public record EnqueueResult(Integer index, String status, String queue, String taskId, String duplicateOf,
                            String matchedOn, Boolean payloadMatches) {

    /** The wire form of an outcome; index null for a single enqueue. */
    public static EnqueueResult of(Integer index, Enqueued e) {
        return new EnqueueResult(index, e.duplicate() ? "duplicate" : "enqueued", e.queue(), e.taskId(),
                e.duplicate() ? e.taskId() : null, e.matchedOn(), e.payloadMatches());
    }
}
