package dev.exactly.redrive;

import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.List;

/**
 * The answer to a redrive.
 *
 * @param results   one per requested messageId in request order, or per copy redriven by a
 *                  "redrive all" call in dead-letter partition and offset order
 * @param remaining copies in the dead-letter queue not redriven yet, after this call
 */
@RegisterForReflection
public record RedriveResponse(List<RedriveResult> results, long remaining) {
}
