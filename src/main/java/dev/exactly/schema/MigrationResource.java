package dev.exactly.schema;

import dev.exactly.db.DatabaseErrors;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;

/**
 * POST /api/v1/admin/migrate: applies sql/ to the database, once per deploy, invoked by the
 * pipeline after the function is updated (see README, Deploy). Needs an API key like every
 * /api endpoint. Idempotent: a second call applies nothing.
 */
@Path("/api/v1/admin/migrate")
public class MigrationResource {

    private final SchemaMigrator migrator;

    /** Constructor injection. */
    public MigrationResource(SchemaMigrator migrator) {
        this.migrator = migrator;
    }

    /**
     * @return {"migrationsExecuted": n, "schemaVersion": "v"}; 503 problem+json when the
     *         database cannot be reached (retrying is safe)
     */
    @POST
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "Apply the schema migrations (once per deploy)")
    public Uni<SchemaMigrator.Outcome> migrate() {
        return migrator.migrate().onFailure().transform(DatabaseErrors.CLASSIFY);
    }
}
