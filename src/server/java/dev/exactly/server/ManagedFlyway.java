package dev.exactly.server;

import dev.exactly.schema.FlywaySource;
import jakarta.enterprise.context.ApplicationScoped;
import org.flywaydb.core.Flyway;

/**
 * The server shape's {@link FlywaySource}: quarkus-flyway's Flyway of the default datasource (the
 * one that also applies sql/ at start-up when exactly.schema.migrate-at-start is on), over its
 * Agroal JDBC datasource ({@code quarkus.datasource.jdbc.*}).
 */
@ApplicationScoped
public class ManagedFlyway implements FlywaySource {

    private final Flyway flyway;

    /** Constructor injection: the Flyway bean of quarkus-flyway. */
    public ManagedFlyway(Flyway flyway) {
        this.flyway = flyway;
    }

    @Override
    public Flyway flyway() {
        return flyway;
    }
}
