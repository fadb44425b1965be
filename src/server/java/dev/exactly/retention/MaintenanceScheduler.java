package dev.exactly.retention;

import io.quarkus.scheduler.Scheduled;
import io.quarkus.scheduler.ScheduledExecution;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Singleton;
import org.jboss.logging.Logger;

/**
 * Runs the maintenance job every exactly.maintenance.every while exactly.maintenance.enabled is
 * true. Never two runs of this instance at once; a failed run is logged and the next one tries
 * again. The server shape's only (src/server/java): the Lambda build has no scheduler, its
 * maintenance comes from the EventBridge schedule (infra/terraform/schedule.tf), which the
 * function's handler answers.
 */
@ApplicationScoped
public class MaintenanceScheduler {

    private static final Logger LOG = Logger.getLogger(MaintenanceScheduler.class);

    private final MaintenanceService service;

    /** Constructor injection. */
    public MaintenanceScheduler(MaintenanceService service) {
        this.service = service;
    }

    /** One scheduled run; non-blocking (runs on the event loop). */
    @Scheduled(identity = "exactly-maintenance", every = "${exactly.maintenance.every}",
            delayed = "${exactly.maintenance.every}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = Disabled.class)
    Uni<Void> run() {
        return service.run()
                .onFailure().invoke(e -> LOG.warnf("maintenance run failed: %s", e.toString()))
                .onFailure().recoverWithNull()
                .replaceWithVoid();
    }

    /** Skips scheduled runs while exactly.maintenance.enabled is false. */
    @Singleton
    public static class Disabled implements Scheduled.SkipPredicate {

        private final MaintenanceConfig config;

        /** Constructor injection. */
        public Disabled(MaintenanceConfig config) {
            this.config = config;
        }

        @Override
        public boolean test(ScheduledExecution execution) {
            return !config.enabled();
        }
    }
}
