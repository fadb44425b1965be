package dev.exactly.task;

import dev.exactly.http.Checked;
import dev.exactly.http.IndexedItems;
import dev.exactly.http.RawJson;
import dev.exactly.naming.Key;
import dev.exactly.naming.Name;
import dev.exactly.problem.ApiProblem;
import dev.exactly.problem.FieldError;
import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.io.IOException;
import java.time.DateTimeException;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.function.BiConsumer;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * The body of an enqueue: one task, {@code {"queue"?,"id"?,"type","data","autoDedupe"?,"maxRetries"?,
 * "retryDelaySeconds"?,"priority"?,"runAt"?}}. The data is kept as the exact bytes sent; with autoDedupe
 * its {@link DedupeKeys} key is computed when the task is made ({@link #task}), so data that cannot be
 * canonicalised is refused as bad input.
 *
 * @param queue             queue name ({@value #DEFAULT_QUEUE} when none is given)
 * @param id                the client's id, or null to have a UUIDv7 minted
 * @param type              task type, 1 to {@value #MAX_TYPE_BYTES} UTF-8 bytes
 * @param data              any JSON value, stored byte for byte
 * @param autoDedupe        drop a task whose type and data match a pending one's (default false)
 * @param maxRetries        deliveries allowed after the first, 0 to {@value #MAX_RETRIES} (default 3)
 * @param retryDelaySeconds wait after a failure, 0 to {@value #MAX_RETRY_DELAY_SECONDS} seconds (default 0)
 * @param priority          higher is claimed first (default 0)
 * @param runAt             an RFC 3339 date-time with an offset, from 1970 to 9999: not claimable before it
 */
@RegisterForReflection
@Checked
@Schema(name = "TaskRequestRecord", ref = "TaskRequest") // its schema, in META-INF/openapi.yaml
public record TaskRequest(@Name String queue, @Name String id,
                          @NotNull(message = "is required") @Key(maxBytes = MAX_TYPE_BYTES) String type,
                          @NotNull(message = "is required (any JSON value)") RawJson data, Boolean autoDedupe,
                          @Min(value = 0, message = RETRIES) @Max(value = MAX_RETRIES, message = RETRIES) Integer maxRetries,
                          @Min(value = 0, message = DELAY) @Max(value = MAX_RETRY_DELAY_SECONDS, message = DELAY) Integer retryDelaySeconds,
                          Integer priority, String runAt) implements Checked.Rules {

    /** The queue a task goes to when it names none. */
    public static final String DEFAULT_QUEUE = "default";
    /** Longest task type, in UTF-8 bytes. */
    public static final int MAX_TYPE_BYTES = 256;
    /** Most retries a task may ask for. */
    public static final int MAX_RETRIES = 1000;
    /** Longest retry delay, in seconds (one year). */
    public static final int MAX_RETRY_DELAY_SECONDS = 31_536_000;
    /** Retries of a task that names none. */
    public static final int DEFAULT_MAX_RETRIES = 3;

    static final String RETRIES = "must be an integer from 0 to " + MAX_RETRIES;
    static final String DELAY = "must be an integer from 0 to " + MAX_RETRY_DELAY_SECONDS;

    private static final OffsetDateTime EARLIEST = OffsetDateTime.parse("1970-01-01T00:00:00Z");
    private static final OffsetDateTime LATEST = OffsetDateTime.parse("9999-12-31T23:59:59Z");

    /** The defaults of what was not given. */
    public TaskRequest {
        queue = queue == null ? DEFAULT_QUEUE : queue;
    }

    @Override
    public void check(BiConsumer<String, String> broken) {
        if (runAt == null) {
            return;
        }
        try {
            OffsetDateTime t = OffsetDateTime.parse(runAt);
            if (t.isBefore(EARLIEST) || t.isAfter(LATEST)) {
                broken.accept("runAt", "must lie between 1970 and 9999");
            }
        } catch (DateTimeException e) {
            broken.accept("runAt", "must be an RFC 3339 date-time with an offset, e.g. 2030-01-01T09:00:00Z");
        }
    }

    /**
     * The task to enqueue, with its autoDedupe key.
     *
     * @param index the task's position in a batch, or null for a single task
     * @return the task
     * @throws ApiProblem 400 naming {@code data} when autoDedupe is on and the data has no RFC 8785 canonical form
     */
    public NewTask task(Integer index) {
        byte[] key = null;
        if (Boolean.TRUE.equals(autoDedupe)) {
            try {
                key = DedupeKeys.key(type, DedupeKeys.canonical(data.bytes()));
            } catch (IOException e) {
                throw ApiProblem.invalid("tasks", List.of(new FieldError(index, "data", "with autoDedupe, " + e.getMessage())));
            }
        }
        return new NewTask(queue, id, type, data.bytes(), key, priority == null ? 0 : priority,
                runAt == null ? null : OffsetDateTime.parse(runAt), maxRetries == null ? DEFAULT_MAX_RETRIES : maxRetries,
                retryDelaySeconds == null ? 0 : retryDelaySeconds, DedupeKeys.payloadDigest(type, data.bytes()));
    }

    /**
     * The body of a batch enqueue, {@code {"tasks":[task, …]}}: at least one task, at most
     * {@code exactly.tasks.max-batch-items}.
     *
     * @param tasks the tasks, in request order
     */
    @RegisterForReflection
    @IndexedItems
    @Schema(ref = "TaskBatchRequest") // its schema, in META-INF/openapi.yaml
    public record Batch(@NotNull(message = "is required") @Size(min = 1, message = "must hold at least one task")
                        List<@NotNull(message = "a task must be a JSON object") @Valid TaskRequest> tasks) {
    }
}
