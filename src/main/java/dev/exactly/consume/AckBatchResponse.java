package dev.exactly.consume;

import java.util.List;

/**
 * The answer to a batch ack: one result per item, in request order.
 *
 * @param results per item; check each one's {@code result}
 */
public record AckBatchResponse(List<AckResult> results) {
}
