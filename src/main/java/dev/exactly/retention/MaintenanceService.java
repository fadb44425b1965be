package dev.exactly.retention;

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
 * each step re-reads its partition's watermarks under the lock.
 */
@ApplicationScoped
public class MaintenanceService {

    private static final Logger LOG = Logger.getLogger(MaintenanceService.class);

    private final RetentionRepository repository;
    private final MaintenanceConfig config;

    /** Constructor injection. */
    public MaintenanceService(RetentionRepository repository, MaintenanceConfig config) {
        this.repository = repository;
        this.config = config;
    }

    /**
     * Runs the job once.
     *
     * @return what was purged
     * @throws dev.exactly.db.StoreUnavailableException (as the Uni's failure) when the database is away
     */
    public Uni<MaintenanceReport> run() {
        return repository.candidates().flatMap(ids -> purge(ids, 0, new Totals(ids.size())))
                .invoke(r -> {
                    if (r.purgedMessages() > 0 || r.purgedHashes() > 0) {
                        LOG.infof("maintenance: purged %d messages and %d transaction hashes in %d steps over %d partitions%s",
                                r.purgedMessages(), r.purgedHashes(), r.steps(), r.partitions(),
                                r.more() ? " (step budget reached, more to do)" : "");
                    }
                });
    }

    private Uni<MaintenanceReport> purge(List<Long> ids, int at, Totals totals) {
        if (at >= ids.size()) {
            return Uni.createFrom().item(totals.report(false));
        }
        if (totals.steps >= config.maxSteps()) {
            return Uni.createFrom().item(totals.report(true));
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

    private static final class Totals {
        final int partitions;
        int steps;
        long messages;
        long hashes;

        Totals(int partitions) {
            this.partitions = partitions;
        }

        MaintenanceReport report(boolean more) {
            return new MaintenanceReport(partitions, steps, messages, hashes, more);
        }
    }
}
