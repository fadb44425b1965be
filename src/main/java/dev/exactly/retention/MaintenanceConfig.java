package dev.exactly.retention;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Min;

/** The maintenance job (retention purge), under {@code exactly.maintenance.} (SmallRye Config). */
@ConfigMapping(prefix = "exactly.maintenance")
public interface MaintenanceConfig {

    /**
     * Run the job from the in-process scheduler (server mode). Off where something else triggers
     * POST /api/v1/admin/maintenance instead (e.g. an EventBridge schedule on Lambda).
     */
    @WithDefault("true")
    boolean enabled();

    /** Interval between scheduled runs (a Quarkus duration such as "60s" or "5m"). */
    @WithDefault("60s")
    String every();

    /** Most messages, and most hashes, purged in one step (one short transaction under one partition's lock). */
    @WithDefault("5000")
    @Min(1)
    int batchSize();

    /** Most steps in one run; a run that hits it reports more = true and the next run goes on. */
    @WithDefault("1000")
    @Min(1)
    int maxSteps();
}
