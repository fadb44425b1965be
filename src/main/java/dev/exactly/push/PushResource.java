package dev.exactly.push;

import dev.exactly.config.ExactlyConfig;
import dev.exactly.engine.PushEngine;
import dev.exactly.http.JsonRequest;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;

/** POST /api/v1/push: push messages, each answered with an exact deduplication verdict. */
@Path("/api/v1/push")
public class PushResource {

    private final PushEngine engine;
    private final ExactlyConfig config;
    private final PushRequests reader = new PushRequests();

    /** Constructor injection. */
    public PushResource(PushEngine engine, ExactlyConfig config) {
        this.engine = engine;
        this.config = config;
    }

    /**
     * Pushes items. A transactionId already stored in the same queue partition within the
     * queue's deduplication window writes nothing and answers "duplicate" with the original
     * message's id; duplicates inside the request are settled first-wins.
     *
     * @param body the JSON request, at most exactly.push.max-body-bytes bytes
     * @return per item: index, queue, partition, transactionId, messageId, status
     */
    @POST
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "Push messages with exact deduplication by transactionId",
            description = "Body: {\"items\":[{\"queue\",\"partition\"?,\"transactionId\"?,\"payload\",\"traceId\"?}]}. "
                    + "transactionIds compare byte for byte (no Unicode normalisation).")
    public Uni<PushResponse> push(byte[] body) {
        JsonRequest.checkSize(body, config.push().maxBodyBytes());
        var commands = reader.read(body, config.push().maxItems());
        return engine.push(commands).map(verdicts -> new PushResponse(verdicts.stream().map(PushResult::of).toList()));
    }
}
