package dev.exactly.task;

import dev.exactly.http.RawJson;
import dev.exactly.naming.Key;
import dev.exactly.naming.Name;
import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.util.List;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * The bodies of a worker's calls: claim, and complete, fail or extend under the claim's lease. The
 * largest limit and lease are settings ({@link TaskConfig}), checked by {@link TaskResource}.
 */
public final class WorkerRequest {

    /** Longest failure error, in UTF-8 bytes. */
    public static final int MAX_ERROR_BYTES = 65_536;
    /** Most types one claim may filter on. */
    public static final int MAX_TYPES = 100;

    private WorkerRequest() {
    }

    /**
     * A claim, {@code {"queue"?,"types"?,"limit"?,"leaseSeconds"?}}; no body claims one task of the default queue.
     *
     * @param queue        queue name ({@value TaskRequest#DEFAULT_QUEUE} when none is given)
     * @param types        only tasks of these types (1 to {@value #MAX_TYPES}), or null for any
     * @param limit        most tasks to hand out (default 1)
     * @param leaseSeconds lease of each claimed task, or null for exactly.tasks.default-lease-seconds
     */
    @RegisterForReflection
    @Schema(ref = "ClaimRequest") // its schema, in META-INF/openapi.yaml
    public record Claim(@Name String queue,
                        @Size(min = 1, max = MAX_TYPES, message = "must name 1 to " + MAX_TYPES + " types (omit it for any type)")
                        List<@NotNull(message = "must be a string") @Key(maxBytes = TaskRequest.MAX_TYPE_BYTES) String> types,
                        @Min(value = 1, message = "must be at least 1") Integer limit,
                        @Min(value = 1, message = "must be at least 1") Integer leaseSeconds) {

        /** The defaults of what was not given (the lease's is a setting). */
        public Claim {
            queue = queue == null ? TaskRequest.DEFAULT_QUEUE : queue;
            limit = limit == null ? 1 : limit;
        }
    }

    /**
     * A completion, {@code {"leaseId","result"?}}.
     *
     * @param leaseId the lease the claim handed out
     * @param result  any JSON value, stored byte for byte, or null
     */
    @RegisterForReflection
    @Schema(ref = "CompleteRequest") // its schema, in META-INF/openapi.yaml
    public record Complete(@NotNull(message = "is required (the claim's leaseId)") UUID leaseId, RawJson result) {
    }

    /**
     * A failure, {@code {"leaseId","error"}}.
     *
     * @param leaseId the lease the claim handed out
     * @param error   what went wrong, at most {@value #MAX_ERROR_BYTES} UTF-8 bytes
     */
    @RegisterForReflection
    @Schema(ref = "FailRequest") // its schema, in META-INF/openapi.yaml
    public record Fail(@NotNull(message = "is required (the claim's leaseId)") UUID leaseId,
                       @NotNull(message = "is required") @Key(maxBytes = MAX_ERROR_BYTES) String error) {
    }

    /**
     * A lease extension, {@code {"leaseId","leaseSeconds"?}}.
     *
     * @param leaseId      the lease the claim handed out
     * @param leaseSeconds the lease's new length counted from now, or null for exactly.tasks.default-lease-seconds
     */
    @RegisterForReflection
    @Schema(ref = "ExtendRequest") // its schema, in META-INF/openapi.yaml
    public record Extend(@NotNull(message = "is required (the claim's leaseId)") UUID leaseId,
                         @Min(value = 1, message = "must be at least 1") Integer leaseSeconds) {
    }
}
