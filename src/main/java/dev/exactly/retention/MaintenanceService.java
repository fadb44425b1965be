package dev.exactly.retention;

import dev.exactly.duplicate.DuplicateCountRepository;
import dev.exactly.task.FinishedTaskPurge;
import dev.exactly.webhook.WebhookFigures;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import org.jboss.logging.Logger;

/**
 * The maintenance job: purges old message data and transaction hashes partition by partition,
 * in bounded steps (exactly.maintenance.batch-size rows, one short transaction under one
 * partition's row lock each), at most exactly.maintenance.max-steps steps per run. Steps run one
 * after another, so a run holds at most one partition lock at a time and never blocks pushes to
 * other partitions. Concurrent runs (scheduler and admin endpoint, or several instances) are safe:
 * each step re-reads its partition's watermarks under the lock. Then, within the same step budget,
 * it deletes finished tasks past their queue's task retention ({@link FinishedTaskPurge}), then the
 * duplicate-count buckets older than their queue's window ({@link DuplicateCountRepository#purge}),
 * then the webhook sources' minute figures past their kept history ({@link WebhookFigures#purge}),
 * each in bounded steps of one short transaction.
 */
@ApplicationScoped
public class MaintenanceService {

    private static final Logger LOG = Logger.getLogger(MaintenanceService.class);

    private final RetentionRepository repository;
    private final FinishedTaskPurge tasks;
    private final DuplicateCountRepository duplicates;
    private final WebhookFigures webhooks;
    private final MaintenanceConfig config;

    /** Constructor injection. */
    public MaintenanceService(RetentionRepository repository, FinishedTaskPurge tasks,
                              DuplicateCountRepository duplicates, WebhookFigures webhooks, MaintenanceConfig config) {
        this.repository = repository;
        this.webhooks = webhooks;
        this.tasks = tasks;
        this.duplicates = duplicates;
        this.config = config;
    }

    /**
     * Runs the job once.
     *
     * @return what was purged
     * @throws dev.exactly.db.StoreUnavailableException (as the Uni's failure) when the database is away
     */
    public Uni<MaintenanceReport> run() {
        return repository.candidates()
                .flatMap(ids -> {
                    Totals totals = new Totals(ids.size());
                    return purge(ids, 0, totals).flatMap(partitionsDone -> partitionsDone
                            ? purgeTasks(totals) : Uni.createFrom().item(totals.report(true)));
                })
                .invoke(r -> {
                    if (r.purgedMessages() > 0 || r.purgedHashes() > 0 || r.purgedTasks() > 0
                            || r.purgedDuplicateBuckets() > 0 || r.purgedWebhookMinutes() > 0) {
                        LOG.infof("maintenance: purged %d messages and %d transaction hashes over %d partitions, "
                                        + "%d finished tasks, %d duplicate-count buckets and %d webhook figure minutes, "
                                        + "in %d steps%s",
                                r.purgedMessages(), r.purgedHashes(), r.partitions(), r.purgedTasks(),
                                r.purgedDuplicateBuckets(), r.purgedWebhookMinutes(), r.steps(),
                                r.more() ? " (step budget reached, more to do)" : "");
                    }
                });
    }

    /** Purges the partitions from {@code at} on; the item is true when all are done within the budget. */
    private Uni<Boolean> purge(List<Long> ids, int at, Totals totals) {
        if (at >= ids.size()) {
            return Uni.createFrom().item(true);
        }
        if (totals.steps >= config.maxSteps()) {
            return Uni.createFrom().item(false);
        }
        return repository.purge(ids.get(at), config.batchSize()).flatMap(step -> {
            totals.steps++;
            boolean again = step != null && step.more();
            if (step != null) {
                totals.messages += step.purgedMessages();
                totals.hashes += step.purgedHashes();
            }
            return purge(ids, again ? at : at + 1, totals);
        });
    }

    /** Deletes finished tasks past retention, a step at a time, until none is due or the budget is spent. */
    private Uni<MaintenanceReport> purgeTasks(Totals totals) {
        if (totals.steps >= config.maxSteps()) {
            return Uni.createFrom().item(totals.report(true));
        }
        return tasks.step(config.batchSize()).flatMap(deleted -> {
            totals.steps++;
            totals.tasks += deleted;
            return deleted < config.batchSize() ? purgeDuplicateCounts(totals) : purgeTasks(totals);
        });
    }

    /** Deletes duplicate-count buckets no window reaches, a step at a time, within the budget. */
    private Uni<MaintenanceReport> purgeDuplicateCounts(Totals totals) {
        if (totals.steps >= config.maxSteps()) {
            return Uni.createFrom().item(totals.report(true));
        }
        return duplicates.purge(config.batchSize()).flatMap(deleted -> {
            totals.steps++;
            totals.duplicateBuckets += deleted;
            return deleted < config.batchSize() ? purgeWebhookMinutes(totals) : purgeDuplicateCounts(totals);
        });
    }

    /** Deletes webhook figure minutes past their kept history, a step at a time, within the budget. */
    private Uni<MaintenanceReport> purgeWebhookMinutes(Totals totals) {
        if (totals.steps >= config.maxSteps()) {
            return Uni.createFrom().item(totals.report(true));
        }
        return webhooks.purge(config.batchSize()).flatMap(deleted -> {
            totals.steps++;
            totals.webhookMinutes += deleted;
            return deleted < config.batchSize() ? Uni.createFrom().item(totals.report(false))
                    : purgeWebhookMinutes(totals);
        });
    }

    private static final class Totals {
        final int partitions;
        int steps;
        long messages;
        long hashes;
        long tasks;
        long duplicateBuckets;
        long webhookMinutes;

        Totals(int partitions) {
            this.partitions = partitions;
        }

        MaintenanceReport report(boolean more) {
            return new MaintenanceReport(partitions, steps, messages, hashes, tasks, duplicateBuckets, webhookMinutes,
                    more);
        }
    }
}
