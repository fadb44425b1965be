package dev.exactly.transaction;

import dev.exactly.config.ExactlyConfig;
import dev.exactly.destination.Dispatcher;
import dev.exactly.push.PushRequest;
import dev.exactly.problem.ApiProblem;
import io.quarkus.security.Authenticated;
import io.smallrye.mutiny.Uni;
import jakarta.validation.Valid;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;

/** POST /api/v1/transaction: pushes and acks, all or nothing. */
@Authenticated
@Path("/api/v1/transaction")
public class TransactionResource {

    private final TransactionService service;
    private final ExactlyConfig config;
    private final Dispatcher destinations;

    /** Constructor injection. */
    public TransactionResource(TransactionService service, ExactlyConfig config, Dispatcher destinations) {
        this.service = service;
        this.config = config;
        this.destinations = destinations;
    }

    /**
     * Runs push and ack operations in one database transaction. Body:
     * {@code {"operations":[{"type":"push","items":[…push items…]}, {"type":"ack", …ack fields…}]}}.
     * A push item that is a duplicate (of a stored message within the window, or of an earlier
     * item of the transaction), or an ack that is unresolved or does not hold its lease, rolls
     * everything back: 409 problem+json naming the operation, the item and the original messageId.
     *
     * @return per operation: the push verdicts (all "queued") or the ack result
     */
    @POST
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "Push and ack all-or-nothing; a duplicate or an unresolved ack rolls everything back (409)")
    public Uni<TransactionResponse> transaction(@Valid TransactionRequest body) {
        int max = config.push().maxItems();
        if (body.operations().stream().mapToInt(o -> o.items() == null ? 0 : o.items().size()).sum() > max) {
            throw ApiProblem.invalid(null, "operations", "at most " + max + " push items per transaction");
        }
        // committed: the queues pushed to start their destinations' delivery
        return service.run(body.commands()).call(() -> destinations.stored(body.operations().stream()
                .filter(o -> "push".equals(o.type())).flatMap(o -> o.items().stream()).map(PushRequest.Item::queue)
                .distinct().toList()));
    }
}
