package dev.exactly.queue;

import dev.exactly.consume.DeadLetters;
import dev.exactly.duplicate.DuplicateCountRepository;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.arc.Unremovable;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.jboss.logging.Logger;

/**
 * Publishes the figures of the queues named in {@code exactly.metrics.queues} as Micrometer
 * gauges, refreshed from the database every {@code exactly.metrics.every}: exactly_queue_partitions,
 * exactly_queue_messages, exactly_queue_dead_letters (tag queue) and exactly_queue_lag_messages,
 * exactly_queue_oldest_undelivered_seconds (tags queue, group; at most exactly.metrics.max-groups
 * groups per queue). The timer is the server shape's ({@code QueueGaugesSchedule}, which calls
 * {@link #refresh} when a queue is named): the first refresh comes one interval after start-up. A
 * Lambda instance, frozen between invocations, runs no timer and refreshes no gauge. A gauge reads
 * NaN until its first refresh. Unremovable: the Lambda build injects it nowhere, and the bean keeps
 * the {@code exactly.metrics.*} settings mapped and checked there as in the server (an unused
 * mapping would be dropped, and a configured key would then map to no config root).
 */
@Unremovable
@ApplicationScoped
public class QueueGauges {

    private static final Logger LOG = Logger.getLogger(QueueGauges.class);

    private final QueueStatsRepository stats;
    private final DuplicateCountRepository duplicates;
    private final MeterRegistry registry;
    private final List<String> queues;
    private final int maxGroups;
    private final Map<String, AtomicReference<Double>> values = new ConcurrentHashMap<>();

    /** Constructor injection. */
    public QueueGauges(QueueStatsRepository stats, DuplicateCountRepository duplicates, MeterRegistry registry,
                       QueueMetricsConfig config) {
        this.stats = stats;
        this.duplicates = duplicates;
        this.registry = registry;
        this.queues = config.queues().orElse(List.of());
        this.maxGroups = config.maxGroups();
    }

    /** @return whether {@code exactly.metrics.queues} names at least one queue */
    public boolean namesQueues() {
        return !queues.isEmpty();
    }

    /**
     * One timed refresh: {@link #refresh}, a failure logged (the next refresh tries again), never failing.
     *
     * @return completes when the gauges are set, or the failure was logged
     */
    public Uni<Void> refreshQuietly() {
        return refresh().onFailure().invoke(e -> LOG.warnf("queue gauges: refresh failed: %s", e.toString()))
                .onFailure().recoverWithNull();
    }

    /**
     * Reads every named queue's figures and sets the gauges.
     *
     * @throws dev.exactly.db.StoreUnavailableException (as the Uni's failure) when the database is away
     */
    public Uni<Void> refresh() {
        Uni<Void> chain = Uni.createFrom().voidItem();
        for (String queue : queues) {
            chain = chain.flatMap(v -> refresh(queue));
        }
        return chain;
    }

    private Uni<Void> refresh(String queue) {
        return stats.size(queue).flatMap(size -> stats.size(DeadLetters.queueOf(queue)).flatMap(dead ->
                duplicates.window(queue).flatMap(dup -> stats.groups(queue).map(groups -> {
                    set("exactly.queue.partitions", "partitions of the queue", queue, null,
                            size == null ? Double.NaN : size.partitions());
                    set("exactly.queue.messages", "messages the queue stores", queue, null,
                            size == null ? Double.NaN : size.messages());
                    set("exactly.queue.dead.letters", "messages in the queue's dead-letter queue", queue, null,
                            dead == null ? 0 : dead.messages());
                    set("exactly.queue.duplicates", "pushes answered duplicate over the queue's deduplication window "
                            + "(at least)", queue, null, dup == null ? Double.NaN : dup.atLeast());
                    for (QueueStatsRepository.GroupLag g : groups.subList(0, Math.min(maxGroups, groups.size()))) {
                        set("exactly.queue.lag.messages", "messages a consumer group has not settled", queue,
                                g.group(), g.lag());
                        set("exactly.queue.oldest.undelivered.seconds",
                                "age of the oldest message a consumer group has not settled", queue, g.group(),
                                g.ageSeconds() == null ? 0 : g.ageSeconds());
                    }
                    return null;
                }))));
    }

    private void set(String name, String description, String queue, String group, double value) {
        String key = name + '\u001f' + queue + '\u001f' + (group == null ? "" : group);
        values.computeIfAbsent(key, k -> {
            AtomicReference<Double> cell = new AtomicReference<>(Double.NaN);
            Gauge.Builder<AtomicReference<Double>> b = Gauge.builder(name, cell, AtomicReference::get)
                    .description(description).tag("queue", queue);
            if (group != null) {
                b.tag("group", group);
            }
            b.register(registry);
            return cell;
        }).set(value);
    }
}
