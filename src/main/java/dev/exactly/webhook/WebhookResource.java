package dev.exactly.webhook;

import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.PermitAll;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.headers.Header;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

/**
 * POST /webhooks/{source}: receives a provider's webhook delivery. Public (no API key: a provider
 * cannot send one), and authenticated instead by the source's signature scheme, which
 * {@link WebhookIngest} checks before anything is written. A thin adapter over {@link WebhookIngest}.
 */
@PermitAll
@Path(WebhookResource.PATH)
public class WebhookResource {

    /** The webhook routes' common path (one segment, the source, follows). */
    public static final String PATH = "/webhooks";

    /** Response header carrying the verdict: queued or duplicate. */
    public static final String VERDICT_HEADER = "Exactly-Verdict";

    /** Response header carrying the stored (for a duplicate: the original) message's id. */
    public static final String MESSAGE_ID_HEADER = "Exactly-Message-Id";

    /** Response header of a duplicate: "true" or "false", whether its body equals the original's (absent: unknown). */
    public static final String PAYLOAD_MATCHES_HEADER = "Exactly-Payload-Matches";

    private final WebhookIngest ingest;

    /** Constructor injection. */
    public WebhookResource(WebhookIngest ingest) {
        this.ingest = ingest;
    }

    /**
     * @param source  the configured source name
     * @param headers the request headers (the signature, key and kept headers are read from them)
     * @param body    the exact body bytes, stored unchanged
     * @return 200 with a {@link WebhookReceipt} and the Exactly-Verdict / Exactly-Message-Id headers,
     *         for a new delivery and for a duplicate alike (so the sender stops retrying); 200
     *         text/plain with the challenge for a signed Slack or Twitch verification request;
     *         a duplicate also carries Exactly-Payload-Matches; 401, 400, 404, 413 problem+json
     *         otherwise, and 422 for a redelivery whose body differs when the queue rejects a
     *         payload mismatch, with nothing written
     */
    @POST
    @Path("/{source}")
    @Consumes(MediaType.WILDCARD)
    @Produces({MediaType.APPLICATION_JSON, MediaType.TEXT_PLAIN})
    @Operation(summary = "Receive a webhook delivery, verified by signature and stored once",
            description = "Configured per source under exactly.webhooks.sources.<name>.*. A redelivery answers 200 "
                    + "with verdict duplicate, the original messageId and payloadMatches (whether the body equals the "
                    + "original's).")
    @APIResponse(responseCode = "200", description = "Stored now (queued) or before (duplicate)",
            content = @Content(schema = @Schema(implementation = WebhookReceipt.class)),
            headers = {@Header(name = VERDICT_HEADER, description = "queued or duplicate"),
                    @Header(name = MESSAGE_ID_HEADER, description = "the message id (the original's for a duplicate)"),
                    @Header(name = PAYLOAD_MATCHES_HEADER, description = "duplicate only: true or false, whether the "
                            + "body equals the original's (absent when not known)")})
    @APIResponse(responseCode = "400", description = "The configured key or partition is missing or invalid")
    @APIResponse(responseCode = "401", description = "Missing, malformed, stale or wrong signature")
    @APIResponse(responseCode = "404", description = "No enabled source of that name")
    @APIResponse(responseCode = "413", description = "Body over the source's limit")
    @APIResponse(responseCode = "422", description = "A redelivery whose body differs from the original's, in a "
            + "queue whose payloadMismatch option is reject")
    public Uni<Response> receive(@PathParam("source") String source, @Context HttpHeaders headers, byte[] body) {
        Delivery delivery = new Delivery(body == null ? new byte[0] : body, headers.getRequestHeaders());
        Uni<String> challenge = ingest.handshake(source, delivery);
        if (challenge != null) {
            return challenge.map(c -> Response.ok(c, MediaType.TEXT_PLAIN_TYPE).build());
        }
        return ingest.ingest(source, delivery).map(r -> {
            Response.ResponseBuilder b = Response.ok(r)
                    .header(VERDICT_HEADER, r.verdict())
                    .header(MESSAGE_ID_HEADER, r.messageId().toString());
            if (r.payloadMatches() != null) {
                b.header(PAYLOAD_MATCHES_HEADER, r.payloadMatches().toString());
            }
            return b.build();
        });
    }
}
