package dev.exactly.retention;

import dev.exactly.http.NoFields;
import io.quarkus.security.Authenticated;
import io.smallrye.mutiny.Uni;
import jakarta.validation.Valid;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;

/**
 * POST /api/v1/admin/maintenance: runs the maintenance job once, now (what the scheduler does in
 * server mode; what an external schedule, e.g. EventBridge on Lambda, calls). Under /api/v1, so
 * it needs the API key like every other endpoint there. It takes no fields: no body, or {@code {}}
 * (a field is refused as unknown, {@link NoFields}).
 */
@Authenticated
@Path("/api/v1/admin/maintenance")
public class MaintenanceResource {

    private final MaintenanceService service;

    /** Constructor injection. */
    public MaintenanceResource(MaintenanceService service) {
        this.service = service;
    }

    /**
     * @param body none, or {@code {}}
     * @return what the run purged; more = true when its step budget ran out with work left
     * @throws dev.exactly.problem.ApiProblem 400 for a body with any field or not JSON
     */
    @POST
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "Run the retention purge once (bounded steps under per-partition locks)")
    public Uni<MaintenanceReport> run(@Valid NoFields body) {
        return service.run();
    }
}
