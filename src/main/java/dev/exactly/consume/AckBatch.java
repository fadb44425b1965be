package dev.exactly.consume;

import dev.exactly.http.IndexedItems;
import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * The body of an ack batch, {@code {"items":[ack, …]}}: 1 to {@value #MAX_ACKS} acks, each applied on its own.
 *
 * @param items the acks, in request order
 */
@RegisterForReflection
@IndexedItems
@Schema(ref = "AckBatchRequest") // its schema, in META-INF/openapi.yaml
public record AckBatch(@NotNull(message = "is required") @Size(min = 1, max = MAX_ACKS, message = "must hold 1 to " + MAX_ACKS + " acks")
                       List<@NotNull(message = "an ack must be a JSON object") @Valid AckCommand> items) {

    /** Most acks in one batch. */
    public static final int MAX_ACKS = 1000;
}
