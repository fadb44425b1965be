package dev.exactly.consume;

import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.List;

/**
 * The answer to a batch ack: one result per item, in request order.
 *
 * @param results per item; check each one's {@code result}
 */
@RegisterForReflection
public record AckBatchResponse(List<AckResult> results) {
}
