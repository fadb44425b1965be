package dev.exactly.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;

/**
 * The fusion layer (layer 2, server mode): concurrent pushes to one partition fused into one SQL
 * call. On by default (the server shape); the Lambda shape turns it off in application.properties
 * ({@code %lambda.exactly.fusion.enabled=false}: one request per instance leaves nothing to fuse).
 */
@ConfigMapping(prefix = "exactly.fusion")
public interface FusionConfig {

    /** Fuse concurrent pushes per partition (single-flight per partition). */
    @WithDefault("true")
    boolean enabled();

    /**
     * How long an idle partition waits for more pushes before flushing (e.g. 1ms, 500us; 0 =
     * flush at once). Adaptive: only after the partition's previous flush fused two or more
     * requests; a lone client never waits.
     */
    @WithDefault("1ms")
    @DurationMin
    Duration linger();

    /** Flush as soon as this many items are pending for a partition (flush on size). */
    @WithDefault("1000")
    @Min(1)
    int maxItems();

    /** Flush as soon as this many payload bytes are pending for a partition (default 8 MiB). */
    @WithDefault("8388608")
    @Min(1)
    long maxBytes();

    /**
     * Flushes of one partition in flight at once (1 = one after another). At 2 the next flush
     * already waits for the partition's row lock at the database while the one ahead holds it, so
     * the lock is not idle during the round trips between two flushes; flushes carry fewer
     * requests each, so it pays only where the CPU has room (bench/fusion/run). Each flush in
     * flight holds one pooled connection; at most {@value #MAX_PIPELINE}, so that one partition's
     * flushes cannot take a pool's connections from every other request.
     */
    @WithDefault("1")
    @Min(1)
    @Max(MAX_PIPELINE)
    int pipeline();

    /**
     * Whether a server's pushes commit before their WAL flush, as the stateless shape's always do
     * (sql/R__push.sql, "Commit before the WAL flush"): the partition's row lock is then free
     * during the flush, and each answer waits for a flush of its own. Off by default: a fused flush
     * already carries every request that waited for its partition, and on a 2-core host with a local
     * disk, 100-item pushes to one partition ran slower with it (bench/pgboss/run, workload C).
     * Worth trying where commits are slow (a network disk) and several instances push to the same
     * partitions.
     */
    @WithDefault("false")
    boolean releaseBeforeFlush();

    /** The deepest pipeline exactly.fusion.pipeline may set. */
    int MAX_PIPELINE = 8;
}
