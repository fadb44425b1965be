package dev.exactly.message;

import dev.exactly.problem.ApiProblem;
import io.quarkus.security.Authenticated;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.Operation;

/** GET /api/v1/messages/{messageId}: read back a stored message. */
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
        UUID uuid;
        try {
            uuid = UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            throw ApiProblem.invalid(null, "messageId", "must be a UUID");
        }
        return messages.find(uuid).map(m -> {
            if (m == null) {
                throw ApiProblem.notFound("no message with id " + uuid);
            }
            return MessageView.of(m);
        });
    }
}
