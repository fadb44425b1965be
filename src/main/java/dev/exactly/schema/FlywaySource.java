package dev.exactly.schema;

import org.flywaydb.core.Flyway;

/**
 * Where {@link SchemaMigrator} gets its Flyway. Each shape has one: the server shape uses
 * quarkus-flyway's own bean (configured by its {@code quarkus.flyway.*} keys, built at start-up,
 * where it also migrates), the Lambda shape builds a plain Flyway with the same schema settings on
 * the migrate call: its build has no quarkus-flyway and no JDBC pool, so its cold start builds
 * neither.
 */
public interface FlywaySource {

    /**
     * Called on a worker thread (it may load Flyway and open nothing yet; Flyway connects when a
     * command runs).
     *
     * @return the Flyway to migrate with
     */
    Flyway flyway();
}
