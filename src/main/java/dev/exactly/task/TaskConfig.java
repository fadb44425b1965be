package dev.exactly.task;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** Limits of the task API, under the {@code exactly.tasks.} prefix (SmallRye Config). */
@ConfigMapping(prefix = "exactly.tasks")
public interface TaskConfig {

    /** Largest request body of any task endpoint, in bytes (default 6 MiB); more is a 413. */
    @WithDefault("6291456")
    long maxBodyBytes();

    /** Most tasks one batch enqueue may carry; more is a 400. */
    @WithDefault("1000")
    int maxBatchItems();

    /** Largest {@code limit} of one claim. */
    @WithDefault("1000")
    int maxClaimLimit();

    /** Lease of a claim that names no {@code leaseSeconds}, in seconds. */
    @WithDefault("300")
    int defaultLeaseSeconds();

    /** Longest lease a claim may ask for, in seconds (default one day). */
    @WithDefault("86400")
    int maxLeaseSeconds();
}
