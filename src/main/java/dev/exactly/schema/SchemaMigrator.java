package dev.exactly.schema;

import io.quarkus.datasource.common.runtime.DataSourceUtil;
import io.quarkus.flyway.runtime.FlywayContainerProducer;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Default;
import jakarta.enterprise.inject.Instance;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * Applies the schema migrations of sql/ (shipped as classpath db/migration; Flyway, schema
 * "exactly") to the configured database on demand. This is the once-per-deploy step of a
 * deployment that runs with exactly.schema.migrate-at-start=false (the Lambda shape); Flyway's
 * own lock and history table make a repeated or concurrent call a no-op.
 *
 * <p>Its Flyway is made on the first call, by quarkus-flyway's own producer with the same
 * settings (quarkus.flyway.*) and the build's migration list, over the JDBC datasource. So a
 * deployment whose start-up runs no Flyway ({@code quarkus.flyway.active=false}: the Lambda
 * shape, where building Flyway and the JDBC pool at start-up cost cold-start time for a call made
 * once per deploy) migrates exactly as the server shape's migrate-at-start does.
 */
@ApplicationScoped
public class SchemaMigrator {

    private final FlywayContainerProducer producer;
    private final Instance<DataSource> dataSource;
    private volatile Flyway flyway;

    /**
     * Constructor injection; nothing is created before the first {@link #migrate()}.
     *
     * @param producer   quarkus-flyway's producer of Flyway instances
     * @param dataSource the default JDBC datasource (quarkus.datasource.jdbc.url)
     */
    public SchemaMigrator(FlywayContainerProducer producer, @Any Instance<DataSource> dataSource) {
        this.producer = producer;
        this.dataSource = dataSource.select(Default.Literal.INSTANCE);
    }

    private Flyway flyway() {
        Flyway f = flyway;
        if (f == null) {
            synchronized (this) {
                if (flyway == null) {
                    flyway = producer.createFlyway(dataSource.get(), DataSourceUtil.DEFAULT_DATASOURCE_NAME, true, true).getFlyway();
                }
                f = flyway;
            }
        }
        return f;
    }

    /**
     * What one migration run did.
     *
     * @param migrationsExecuted migrations applied by this run (0 when the schema was current)
     * @param schemaVersion      the schema's version after the run (null for a schema without versioned migrations)
     */
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
            MigrateResult r = flyway().migrate();
            String version = r.targetSchemaVersion != null ? r.targetSchemaVersion : r.initialSchemaVersion;
            return new Outcome(r.migrationsExecuted, version);
        }).runSubscriptionOn(Infrastructure.getDefaultWorkerPool());
    }
}
