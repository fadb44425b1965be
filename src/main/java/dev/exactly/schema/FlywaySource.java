package dev.exactly.schema;

import org.flywaydb.core.Flyway;

/**
 * Where {@link SchemaMigrator} gets its Flyway, configured by the {@code quarkus.flyway.*} keys of
 * the default datasource. Each shape has one: the server shape uses quarkus-flyway's own bean (built
 * at start-up, where it also migrates), the Lambda shape builds one on the migrate call, so its
 * start-up builds no Flyway and no JDBC pool (BENCHMARKS.md, finding 16).
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
