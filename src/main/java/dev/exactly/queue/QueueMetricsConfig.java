package dev.exactly.queue;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Min;
import java.util.List;
import java.util.Optional;

/**
 * Queue gauges, under {@code exactly.metrics.} (SmallRye Config). Cardinality is bounded by
 * configuration: only the named queues get gauges, each with at most {@link #maxGroups()}
 * consumer groups.
 */
@ConfigMapping(prefix = "exactly.metrics")
public interface QueueMetricsConfig {

    /** Queues whose figures are published as exactly_queue_* gauges; none when absent. */
    Optional<List<String>> queues();

    /** Most consumer groups per queue with lag gauges (the first ones by name). */
    @WithDefault("20")
    @Min(0)
    int maxGroups();

    /** Interval between refreshes of the gauges from the database (a Quarkus duration). */
    @WithDefault("30s")
    String every();
}
