package dev.exactly.consume;

import dev.exactly.naming.Name;
import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * The body of a pop, {@code {"queue","partition"?,"consumerGroup"?,"batch"?,"leaseSeconds"?,"waitMillis"?}}.
 *
 * @param queue         queue name
 * @param partition     partition name, or null for any available partition of the queue
 * @param consumerGroup consumer group ({@value #DEFAULT_GROUP} when none is given)
 * @param batch         most messages to return, 1 to {@link #MAX_BATCH} (default 1)
 * @param leaseSeconds  lease length in seconds, 1 to {@link #MAX_LEASE_SECONDS}, or null for the queue's
 *                      leaseTime option
 * @param waitMillis    long-poll: how long to wait for a message when none is available, in
 *                      milliseconds, 0 to {@link #MAX_WAIT_MILLIS} (default 0)
 */
@RegisterForReflection
@Schema(name = "PopRequestRecord", ref = "PopRequest") // its schema, in META-INF/openapi.yaml
public record PopRequest(@NotNull(message = "is required") @Name String queue, @Name String partition,
                         @Name String consumerGroup,
                         @Min(value = 1, message = BATCH) @Max(value = MAX_BATCH, message = BATCH) Integer batch,
                         @Min(value = 1, message = LEASE) @Max(value = MAX_LEASE_SECONDS, message = LEASE) Integer leaseSeconds,
                         @Min(value = 0, message = WAIT) @Max(value = MAX_WAIT_MILLIS, message = WAIT) Integer waitMillis) {

    /** The consumer group of a pop or ack that names none. */
    public static final String DEFAULT_GROUP = "__default";

    /** Most messages one pop returns. */
    public static final int MAX_BATCH = 1000;

    /** Longest long-poll, in milliseconds. */
    public static final int MAX_WAIT_MILLIS = 20_000;

    /** Longest lease a pop may ask for, in seconds (7 days; the queue option leaseTime's bound too). */
    public static final int MAX_LEASE_SECONDS = 604_800;

    static final String BATCH = "must be between 1 and " + MAX_BATCH;
    static final String LEASE = "must be between 1 and " + MAX_LEASE_SECONDS;
    static final String WAIT = "must be between 0 and " + MAX_WAIT_MILLIS;

    /** The defaults of what was not given. */
    public PopRequest {
        consumerGroup = consumerGroup == null ? DEFAULT_GROUP : consumerGroup;
        batch = batch == null ? 1 : batch;
        waitMillis = waitMillis == null ? 0 : waitMillis;
    }
}
