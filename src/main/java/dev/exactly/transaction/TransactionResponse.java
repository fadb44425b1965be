package dev.exactly.transaction;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.exactly.consume.AckResult;
import dev.exactly.push.PushResult;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.List;

/**
 * The answer to a committed transaction: one entry per operation, in request order.
 *
 * @param results per operation
 */
@RegisterForReflection
public record TransactionResponse(List<OperationResult> results) {

    /**
     * One operation's result.
     *
     * @param operation its index (0-based)
     * @param type      "push" or "ack"
     * @param items     for a push: one verdict per item (all "queued")
     * @param ack       for an ack: its result (always "acked")
     */
    @RegisterForReflection
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record OperationResult(int operation, String type, List<PushResult> items, AckResult ack) {
    }
}
