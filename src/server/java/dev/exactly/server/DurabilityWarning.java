package dev.exactly.server;

import dev.exactly.db.DurabilitySettings;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

/**
 * Warns once at start when the database's settings can lose answered pushes in a database crash
 * ({@link DurabilitySettings}): {@code synchronous_commit} or {@code fsync} off. The read runs in
 * the background and never delays or fails the start; a database that cannot be read now is
 * logged at debug level. The server shape's only: a Lambda function's cold start does not pay for
 * the read (docs/operations.md, "Durability").
 */
@ApplicationScoped
public class DurabilityWarning {

    private static final Logger LOG = Logger.getLogger(DurabilityWarning.class);

    private final DurabilitySettings settings;

    /** Constructor injection. */
    public DurabilityWarning(DurabilitySettings settings) {
        this.settings = settings;
    }

    void check(@Observes StartupEvent event) {
        settings.problems().subscribe().with(problems -> {
            for (String p : problems) {
                LOG.warnf("Durability: %s, so a crash of the database can lose pushes already answered queued "
                        + "(run PostgreSQL with synchronous_commit = on and fsync = on; docs/operations.md, \"Durability\")", p);
            }
        }, e -> LOG.debugf("Durability: cannot read the database's settings now: %s", e.toString()));
    }
}
