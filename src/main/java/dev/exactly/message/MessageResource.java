package dev.exactly.message;

import dev.exactly.problem.ApiProblem;
import io.quarkus.security.Authenticated;
import io.smallrye.mutiny.Uni;
import dev.exactly.naming.Name;
import dev.exactly.naming.Names;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.Operation;

/**
 * GET /api/v1/messages/{messageId}: read back a stored message; GET /api/v1/messages?queue=&amp;transactionId=:
 * the messages stored under a key; GET /api/v1/messages/{messageId}/deliveries: its state per consumer group.
 */
@Authenticated
@Path("/api/v1/messages")
@Produces(MediaType.APPLICATION_JSON)
public class MessageResource {

    private final MessageRepository messages;

    /** Constructor injection. */
    public MessageResource(MessageRepository messages) {
        this.messages = messages;
    }

    /**
     * @param id a message id (UUID)
     * @return the message; 400 for a malformed id, 404 when none is stored under it
     */
    @GET
    @Path("/{messageId}")
    @Operation(operationId = "getMessage", summary = "Read a stored message by id")
    public Uni<MessageView> get(@PathParam("messageId") String id) {
        UUID uuid = uuid(id);
        return messages.find(uuid).map(m -> {
            if (m == null) {
                throw ApiProblem.notFound("no message with id " + uuid);
            }
            return MessageView.of(m);
        });
    }

    /**
     * The messages stored under a key in a queue: the original a duplicate answer points to, when
     * it was stored and until when the key is answered duplicate. 200 with an empty list when none.
     */
    @GET
    @Operation(operationId = "findMessagesByKey", summary = "Find the messages stored under a queue and transactionId",
            description = "?queue= and ?transactionId= (both required). Answer: {queue, transactionId, messages:[{message, "
                    + "storedAt, windowSeconds, duplicatesUntil}]}, oldest first, over every partition of the queue; "
                    + "empty when the key is not stored (never pushed, or purged by retention). A push of the key "
                    + "into the message's partition before duplicatesUntil is answered duplicate with its messageId.")
    public Uni<KeyLookup> byKey(@QueryParam("queue") @NotNull(message = "is required") @Name String queue,
                                @QueryParam("transactionId") @NotNull(message = "is required")
                                @Size(max = Names.MAX_TRANSACTION_ID_BYTES, message = "must be at most "
                                        + Names.MAX_TRANSACTION_ID_BYTES + " characters") String transactionId) {
        return messages.byKey(queue, transactionId).map(found -> new KeyLookup(queue, transactionId, found.stream()
                .map(k -> new KeyLookup.Stored(MessageView.of(k.message()), k.message().createdAt(), k.windowSeconds(),
                        k.message().createdAt().plusSeconds(k.windowSeconds()))).toList()));
    }

    /** Where a message stands for each consumer group; 404 when no message has that id. */
    @GET
    @Path("/{messageId}/deliveries")
    @Operation(operationId = "getMessageDeliveries", summary = "A stored message's deliveries, per consumer group",
            description = "Answer: {messageId, deliveries: [{consumerGroup, state, attempts?, lastOutcome?, lastError?, "
                    + "deadLetterId?}]}, a destination's group named destination:<name>. state: settled, dead-lettered (a "
                    + "destination gave up on it; lastError its error), before-start (stored before the destination was "
                    + "created), leased, retrying, waiting. attempts: the deliveries made so far (a destination's: its "
                    + "attempts), as pop's attempts: leased N on delivery N, retrying and dead-lettered those made, "
                    + "waiting and before-start 0, settled those it took while the group records them (absent once "
                    + "its cursor moved past the message, and always for a destination).")
    public Uni<MessageDeliveries> deliveries(@PathParam("messageId") String id) {
        UUID uuid = uuid(id);
        return messages.find(uuid).flatMap(m -> {
            if (m == null) {
                throw ApiProblem.notFound("no message with id " + uuid);
            }
            return messages.deliveries(uuid).map(d -> new MessageDeliveries(uuid, d.stream().map(x ->
                    new MessageDeliveries.Group(x.group(), x.state(), x.attempts(), x.lastOutcome(), x.lastError(),
                            x.deadLetterId())).toList()));
        });
    }

    private static UUID uuid(String id) {
        try {
            return UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            throw ApiProblem.invalid(null, "messageId", "must be a UUID");
        }
    }
}
