package dev.exactly.push;

import java.util.List;

/**
 * The answer to a push: one result per item, in request order.
 *
 * @param results per item
 */
public record PushResponse(List<PushResult> results) {
}
