package dev.exactly.push;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.exactly.engine.PushStatus;
import dev.exactly.engine.PushVerdict;
import dev.exactly.problem.ApiProblem;
import dev.exactly.problem.Problem;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * One item's verdict on the wire.
 *
 * @param index          the item's position in the request
 * @param queue          queue name
 * @param partition      partition name
 * @param transactionId  the idempotency key (the message id when none was given)
 * @param messageId      the stored message's id, or the original's for a duplicate (or a rejected item)
 * @param status         "queued", "duplicate" or "rejected" (a duplicate whose payload differs, in a
 *                       queue whose payloadMismatch option is "reject"; nothing written for it)
 * @param payloadMatches for a duplicate or a rejected item: whether its payload's bytes equal the
 *                       original's; absent when queued or when not known (the original's data was
 *                       purged by retention, or it was stored before digests were kept)
 * @param problem        for a rejected item: its RFC 9457 problem (422 /problems/payload-mismatch,
 *                       naming the item); absent otherwise
 */
@RegisterForReflection
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PushResult(int index, String queue, String partition, String transactionId, UUID messageId,
                         @Schema(enumeration = {"queued", "duplicate", "rejected"}) String status,
                         Boolean payloadMatches, Problem problem) {

    /**
     * The wire form of a verdict.
     *
     * @param v        the engine's verdict
     * @param envelope where the item sits in the request, for a rejected item's problem (e.g.
     *                 "items", or "operations[1].items")
     * @param index    the item's index in that envelope
     */
    public static PushResult of(PushVerdict v, String envelope, int index) {
        return new PushResult(index, v.queue(), v.partition(), v.transactionId(), v.messageId(), v.status().wire(),
                v.payloadMatches(), v.status() == PushStatus.REJECTED ? mismatch(v, envelope, index).toProblem() : null);
    }

    /** The 422 problem of a rejected item. */
    static ApiProblem mismatch(PushVerdict v, String envelope, int index) {
        return ApiProblem.payloadMismatch(envelope, index, v.transactionId(), v.queue(), v.partition(), v.messageId(),
                v.storedBy());
    }
}
