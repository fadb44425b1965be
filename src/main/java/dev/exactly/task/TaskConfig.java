package dev.exactly.task;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Min;
import java.util.Map;
import java.util.OptionalInt;

/** Limits of the task API, under the {@code exactly.tasks.} prefix (SmallRye Config). */
@ConfigMapping(prefix = "exactly.tasks")
public interface TaskConfig {

    /** Largest request body of any task endpoint, in bytes (default 6 MiB); more is a 413. */
    @WithDefault("6291456")
    @Min(1)
    long maxBodyBytes();

    /** Most tasks one batch enqueue may carry; more is a 400. */
    @WithDefault("1000")
    @Min(1)
    int maxBatchItems();

    /** Largest {@code limit} of one claim. */
    @WithDefault("1000")
    @Min(1)
    int maxClaimLimit();

    /** Lease of a claim that names no {@code leaseSeconds}, in seconds. */
    @WithDefault("300")
    @Min(1)
    int defaultLeaseSeconds();

    /** Longest lease a claim may ask for, in seconds (default one day). */
    @WithDefault("86400")
    @Min(1)
    int maxLeaseSeconds();

    /**
     * How long a completed or dead task is kept after it finished, in seconds (default three
     * days); 0 keeps finished tasks forever. The maintenance job purges them.
     */
    @WithDefault("259200")
    @Min(0)
    int retentionSeconds();

    /** Most tasks one listing page may hold ({@code limit} of GET /api/v1/tasks). */
    @WithDefault("1000")
    @Min(1)
    int maxPageSize();

    /**
     * Per-queue settings, keyed by queue name ({@code exactly.tasks.queues."<queue>".*}; quote
     * a name that holds dots).
     */
    Map<String, QueueSettings> queues();

    /** One task queue's own settings. */
    interface QueueSettings {

        /** This queue's retention of finished tasks, in seconds (0 = forever); absent = the default. */
        @Min(0)
        OptionalInt retentionSeconds();
    }
}
