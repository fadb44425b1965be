package dev.exactly.task;

import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Task retention: one bounded step of deleting completed and dead tasks that finished longer
 * ago than their queue's retention ({@code exactly.tasks.retention-seconds}, overridden per queue
 * by {@code exactly.tasks.queues."<queue>".retention-seconds}; 0 keeps them forever). The
 * maintenance job calls it until a step deletes fewer than it may.
 */
@ApplicationScoped
public class FinishedTaskPurge {

    private final TaskRepository store;
    private final int defaultSeconds;
    private final Map<String, Integer> overrides = new LinkedHashMap<>();

    /** Constructor injection; reads the retention settings once. */
    public FinishedTaskPurge(TaskRepository store, TaskConfig config) {
        this.store = store;
        this.defaultSeconds = config.retentionSeconds();
        config.queues().forEach((queue, settings) ->
                settings.retentionSeconds().ifPresent(s -> overrides.put(queue, s)));
    }

    /**
     * Deletes at most {@code limit} finished tasks that are past their retention, oldest first, in
     * one short transaction.
     *
     * @return how many were deleted
     * @throws dev.exactly.db.StoreUnavailableException (as the Uni's failure) when the database is away
     */
    public Uni<Integer> step(int limit) {
        return store.purgeFinished(defaultSeconds, overrides, limit);
    }
}
