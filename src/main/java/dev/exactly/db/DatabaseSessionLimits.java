package dev.exactly.db;

import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

/** Checks the per-connection limits of {@link DatabaseSessionConfig} at start-up and logs them. */
@ApplicationScoped
public class DatabaseSessionLimits {

    private static final Logger LOG = Logger.getLogger(DatabaseSessionLimits.class);

    private final DatabaseSessionConfig config;

    /** Constructor injection. */
    public DatabaseSessionLimits(DatabaseSessionConfig config) {
        this.config = config;
    }

    /**
     * Refuses to start with a negative limit (PostgreSQL would refuse every connection) and logs
     * the limits in force.
     *
     * @throws IllegalStateException when a limit is negative
     */
    void onStart(@Observes StartupEvent event) {
        if (config.statementTimeoutMs() < 0 || config.lockTimeoutMs() < 0 || config.idleInTransactionTimeoutMs() < 0) {
            throw new IllegalStateException("exactly.database.*-ms must be >= 0 (0 turns a limit off)");
        }
        if (config.readinessTimeoutMs() < 1) {
            throw new IllegalStateException("exactly.database.readiness-timeout-ms must be at least 1, not "
                    + config.readinessTimeoutMs());
        }
        LOG.infof("PostgreSQL session limits: statement_timeout=%d ms, lock_timeout=%d ms, "
                        + "idle_in_transaction_session_timeout=%d ms",
                config.statementTimeoutMs(), config.lockTimeoutMs(), config.idleInTransactionTimeoutMs());
    }
}
