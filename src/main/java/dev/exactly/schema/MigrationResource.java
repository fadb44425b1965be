package dev.exactly.schema;

import dev.exactly.db.BorrowedConnections;
import dev.exactly.db.DatabaseErrors;
import dev.exactly.db.DeadlineExceededException;
import dev.exactly.db.RequestDeadline;
import dev.exactly.http.NoFields;
import io.quarkus.security.Authenticated;
import io.smallrye.mutiny.Uni;
import jakarta.validation.Valid;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.time.Duration;
import org.eclipse.microprofile.openapi.annotations.Operation;

/**
 * POST /api/v1/admin/migrate: applies sql/ to the database, once per deploy, invoked by the
 * pipeline after the function is updated (docs/deploy-aws.md, "Every later deploy"). Needs an API
 * key like every /api endpoint. Idempotent: a second call applies nothing. It takes no fields: no
 * body, or {@code {}} ({@link NoFields}).
 */
@Authenticated
@Path("/api/v1/admin/migrate")
public class MigrationResource {

    private final SchemaMigrator migrator;

    /** Constructor injection. */
    public MigrationResource(SchemaMigrator migrator) {
        this.migrator = migrator;
    }

    /**
     * @param body none, or {@code {}}
     * @return {"migrationsExecuted": n, "schemaVersion": "v"}; 503 problem+json when the
     *         database cannot be reached, or the run is not over by the request's deadline
     *         (retrying is safe)
     * @throws dev.exactly.problem.ApiProblem 400 for a body with any field or not JSON
     */
    @POST
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "Apply the schema migrations (once per deploy)")
    public Uni<SchemaMigrator.Outcome> migrate(@Valid NoFields body) {
        Uni<SchemaMigrator.Outcome> run = migrator.migrate().onFailure().transform(DatabaseErrors.CLASSIFY);
        long left = RequestDeadline.remainingNanos(RequestDeadline.current());
        if (left == RequestDeadline.NONE) {
            return run;
        }
        // Flyway runs on (blocking JDBC) past the request's deadline, where the call is answered.
        // In the server shape the run goes on; in the Lambda shape the environment is frozen once
        // the answer is out, so the run pauses until that environment is invoked again, or ends
        // with its connection (PostgreSQL rolls back the unfinished migration). Either way calling
        // again is safe: Flyway's lock makes a second run wait for a live first one, which then
        // leaves it nothing to do.
        return run.ifNoItem().after(Duration.ofNanos(Math.max(1, left - BorrowedConnections.ANSWER_RESERVE.toNanos())))
                .failWith(() -> new DeadlineExceededException("the migration did not finish before the request's deadline; "
                        + "calling again is safe"));
    }
}
