package dev.exactly.push;

import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.List;

/**
 * The answer to a push: one result per item, in request order.
 *
 * @param results per item
 */
@RegisterForReflection
public record PushResponse(List<PushResult> results) {
}
