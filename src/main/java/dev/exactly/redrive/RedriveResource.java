package dev.exactly.redrive;

import dev.exactly.naming.Name;
import io.quarkus.security.Authenticated;
import io.smallrye.mutiny.Uni;
import jakarta.validation.Valid;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;

/** POST /api/v1/queues/{queue}/redrive: moves dead letters back to the queue they came from. */
@Authenticated
@Path("/api/v1")
@Produces(MediaType.APPLICATION_JSON)
public class RedriveResource {

    private final RedriveService redrives;

    /** Constructor injection. */
    public RedriveResource(RedriveService redrives) {
        this.redrives = redrives;
    }

    /**
     * Redrives copies of the queue's dead-letter queue to their origin queue and partition, each
     * once. Body: {@code {"messageIds"?: [uuid, …]}} or {@code {"limit"?: n}} (default 100, at most
     * 1000: the next copies not redriven yet).
     *
     * @return per copy {@code {deadLetterId, status: redriven|duplicate|not-found, messageId, queue,
     *         partition}}, and {@code remaining}: copies not redriven yet
     * @throws dev.exactly.problem.ApiProblem 400 for a bad queue name or body (nothing written)
     */
    @POST
    @Path("/queues/{queue}/redrive")
    @Consumes(MediaType.WILDCARD)
    @Operation(summary = "Redrive dead letters back to their origin queue and partition, each once")
    public Uni<RedriveResponse> redrive(@PathParam("queue") @Name String queue, @Valid RedriveRequest body) {
        return redrives.redrive(queue, body);
    }
}
