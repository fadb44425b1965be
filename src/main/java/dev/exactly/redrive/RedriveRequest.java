package dev.exactly.redrive;

import dev.exactly.http.Checked;
import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.util.List;
import java.util.UUID;
import java.util.function.BiConsumer;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * A redrive request: {@code {"messageIds"?: [uuid, …], "limit"?: n}}. With messageIds (1 to
 * {@link #MAX_IDS}), those dead-letter copies; without, the next {@code limit} (1 to
 * {@link #MAX_IDS}, default {@link #DEFAULT_LIMIT}) copies not redriven yet. The two exclude
 * each other.
 *
 * @param messageIds the copies to redrive, or null for "the next limit of them"
 * @param limit      how many copies a "redrive all" call takes at most, or null for {@link #DEFAULT_LIMIT}
 */
@RegisterForReflection
@Checked
@Schema(name = "RedriveRequestRecord", ref = "RedriveRequest") // its schema, in META-INF/openapi.yaml
public record RedriveRequest(
        @Size(min = 1, max = MAX_IDS, message = "must be an array of 1 to " + MAX_IDS + " message ids")
        List<@NotNull(message = "must be a UUID") UUID> messageIds,
        @Min(value = 1, message = LIMIT) @Max(value = MAX_IDS, message = LIMIT) Integer limit) implements Checked.Rules {

    /** Most copies one call redrives. */
    public static final int MAX_IDS = 1000;

    /** Copies a "redrive all" call takes when no limit is given. */
    public static final int DEFAULT_LIMIT = 100;

    private static final String LIMIT = "must be an integer from 1 to " + MAX_IDS;

    @Override
    public void check(BiConsumer<String, String> broken) {
        if (messageIds != null && limit != null) {
            broken.accept("limit", "cannot be given with messageIds");
        }
    }

    /** @return how many copies a "redrive all" call takes */
    public int take() {
        return limit == null ? DEFAULT_LIMIT : limit;
    }
}
