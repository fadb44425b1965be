package dev.exactly.destination;

import dev.exactly.naming.Name;
import dev.exactly.problem.ApiProblem;
import io.quarkus.security.Authenticated;
import io.smallrye.mutiny.Uni;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;

/**
 * POST /api/v1/queues/{queue}/destinations/{name}/replay: delivers a destination's messages again
 * from an offset or a time on ({@link DestinationReplays}), in offset order per partition, with
 * their original messageIds. Other destinations and consumer groups of the queue see nothing again.
 */
@Authenticated
@Path("/api/v1/queues/{queue}/destinations/{name}/replay")
@Produces(MediaType.APPLICATION_JSON)
public class DestinationReplayResource {

    private final DestinationRepository store;
    private final ConfiguredDestinations configured;
    private final DestinationReplays replays;
    private final Dispatcher dispatcher;

    /** Constructor injection. */
    public DestinationReplayResource(DestinationRepository store, ConfiguredDestinations configured,
                                     DestinationReplays replays, Dispatcher dispatcher) {
        this.store = store;
        this.configured = configured;
        this.replays = replays;
        this.dispatcher = dispatcher;
    }

    /**
     * Replays a destination from {@code fromOffset} (in every partition, or in {@code partition}
     * alone) or from {@code fromTime}. A delivery under way on this instance stops at its next
     * step; its partition starts again at the replay's start.
     *
     * @return where delivery resumes in each partition replayed
     * @throws ApiProblem 400 for a bad body (naming the field; a partition the queue does not have),
     *                    404 when the queue has no such destination
     */
    @POST
    @Consumes(MediaType.WILDCARD)
    @Operation(operationId = "replayDestination", summary = "Deliver a destination's messages again from an offset or a time on",
            description = "Body: {\"fromOffset\": n} (in every partition) or {\"fromTime\": \"2026-12-05T10:00:00Z\"} "
                    + "(RFC 3339: from each partition's first message stored at or after it), with \"partition\"? to "
                    + "replay one partition only. Answer: {\"partitions\": [{\"partition\", \"nextOffset\"}, …]}.")
    public Uni<DestinationReplayed> replay(@PathParam("queue") @Name String queue, @PathParam("name") @Name String name,
                                           @Valid @NotNull(message = "is required") DestinationReplayRequest body) {
        Destination c = configured.all().get(name);
        Uni<Destination> found = c != null ? Uni.createFrom().item(c) : store.get(name);
        return found.flatMap(d -> {
            if (d == null || !d.queue().equals(queue)) {
                throw ApiProblem.notFound("queue '" + queue + "' has no destination named '" + name + "'");
            }
            return replays.replay(queue, d.group(), body.partition(), body.fromOffset(), body.instant());
        }).map(partitions -> {
            if (partitions.isEmpty() && body.partition() != null) {
                throw ApiProblem.invalid(null, "partition", "queue '" + queue + "' has no partition named '"
                        + body.partition() + "'");
            }
            // this instance's workers stop the batches they hold and start again from the cursors
            dispatcher.forget(name);
            dispatcher.refreshSoon();
            return new DestinationReplayed(partitions);
        });
    }
}
