package dev.exactly.schema;

import io.quarkus.runtime.annotations.RegisterForReflection;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.enterprise.context.ApplicationScoped;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * Applies the schema migrations of sql/ (shipped as classpath db/migration; Flyway, schema
 * "exactly") to the configured database on demand. This is the once-per-deploy step of a
 * deployment that runs with exactly.schema.migrate-at-start=false (the Lambda shape); Flyway's
 * own lock and history table make a repeated or concurrent call a no-op.
 */
@ApplicationScoped
public class SchemaMigrator {

    private final FlywaySource flywaySource;

    /** Constructor injection: the shape's Flyway of the default datasource. */
    public SchemaMigrator(FlywaySource flywaySource) {
        this.flywaySource = flywaySource;
    }

    /**
     * What one migration run did.
     *
     * @param migrationsExecuted migrations applied by this run (0 when the schema was current)
     * @param schemaVersion      the schema's version after the run (null for a schema without versioned migrations)
     */
    @RegisterForReflection
    public record Outcome(int migrationsExecuted, String schemaVersion) {
    }

    /**
     * Migrates on a worker thread (Flyway speaks blocking JDBC).
     *
     * @return what was applied
     * @throws org.flywaydb.core.api.FlywayException (as the Uni's failure) when a migration fails
     */
    public Uni<Outcome> migrate() {
        return Uni.createFrom().item(() -> {
            MigrateResult r = flywaySource.flyway().migrate();
            String version = r.targetSchemaVersion != null ? r.targetSchemaVersion : r.initialSchemaVersion;
            return new Outcome(r.migrationsExecuted, version);
        }).runSubscriptionOn(Infrastructure.getDefaultWorkerPool());
    }
}
