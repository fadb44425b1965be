package dev.exactly.consume;

import dev.exactly.problem.ApiProblem;
import dev.exactly.problem.FieldError;
import io.quarkus.security.Authenticated;
import io.smallrye.mutiny.Uni;
import jakarta.validation.Valid;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;

/**
 * Consumption: POST /api/v1/pop (lease a partition, get its next messages in offset order, with
 * optional long-poll), POST /api/v1/pop/extend (extend a pop's lease, a heartbeat), POST
 * /api/v1/ack and POST /api/v1/ack/batch (settle, retry or dead-letter delivered messages, by
 * messageId or transactionId).
 */
@Authenticated
@Path("/api/v1")
@Produces(MediaType.APPLICATION_JSON)
public class ConsumeResource {

    private final PopService pops;
    private final ConsumeRepository store;

    /** Constructor injection. */
    public ConsumeResource(PopService pops, ConsumeRepository store) {
        this.pops = pops;
        this.store = store;
    }

    /**
     * Leases a partition to the caller for its consumer group and returns up to {@code batch}
     * messages in offset order, no more than fit in {@code exactly.consume.max-answer-bytes} (the
     * first one always). One consumer of a group holds a partition at a time; messages not acked
     * before the lease expires are delivered again (at-least-once), each expiry counting as a
     * delivery towards the queue's retryLimit. Body:
     * {@code {"queue","partition"?,"consumerGroup"?="__default","batch"?=1,"leaseSeconds"?,"waitMillis"?=0}}.
     *
     * @return {@code {"messages":[…]}}, empty when nothing is available (after waiting up to waitMillis)
     * @throws ApiProblem 400 for bad input, or a partition outside the spread of a queue that
     *         spreads by key (which never holds a message)
     */
    @POST
    @Path("/pop")
    @Consumes(MediaType.WILDCARD)
    @Operation(summary = "Lease a partition and receive its next messages in offset order (long-poll with waitMillis)")
    public Uni<PopResponse> pop(@Valid PopRequest body) {
        return pops.pop(body).map(PopResponse::new);
    }

    /**
     * Extends a pop lease (a consumer's heartbeat, as a task worker extends a task lease). Body:
     * {@code {"leaseId","leaseSeconds"?}}, leaseSeconds 1 to {@link PopRequest#MAX_LEASE_SECONDS},
     * default the queue's leaseTime; a larger one is refused (400), never shortened. The lease then
     * ends leaseSeconds from now and still covers the messages it delivered; an extension is not a
     * delivery.
     *
     * @return the lease with its new {@code leaseExpiresAt}
     * @throws ApiProblem 409 {@code /problems/lease-conflict} when the lease expired, was taken
     *                    over, released or never granted; nothing is changed
     */
    @POST
    @Path("/pop/extend")
    @Consumes(MediaType.WILDCARD)
    @Operation(summary = "Extend a pop's lease (heartbeat)",
            description = "Body: {\"leaseId\", \"leaseSeconds\"? (the queue's leaseTime)}. The lease then ends "
                    + "leaseSeconds from now, over the same messages; an expired, taken-over or released lease "
                    + "gets 409.")
    public Uni<PopLease> extendLease(@Valid LeaseExtension request) {
        return store.extend(request.leaseId(), request.leaseSeconds()).map(found -> {
            if (found != null && found.extended()) {
                return found.lease();
            }
            String why = found == null
                    ? "no consumer group holds this lease: it expired and was taken over, was released once "
                            + "everything it delivered was acked, or was never granted"
                    : "the lease expired at " + found.lease().leaseExpiresAt() + " and cannot be revived; pop again";
            throw new ApiProblem(409, "lease-conflict", "Lease conflict", why,
                    List.of(new FieldError(null, "leaseId", why)));
        });
    }

    /**
     * Acks one delivered message. Body: {@code {"leaseId","transactionId"|"messageId","status",
     * "queue"?,"partition"?,"consumerGroup"?,"error"?}}; a transactionId ack without partition is
     * resolved in the key's partition (a queue that spreads by key) or the lease's.
     *
     * @return the result; an ack that cannot be resolved (409, type /problems/unresolved) or
     *         whose lease does not hold the message (409, /problems/lease-mismatch) changes nothing
     */
    @POST
    @Path("/ack")
    @Consumes(MediaType.WILDCARD)
    @Operation(summary = "Ack a delivered message: completed, failed, retry or dlq")
    public Uni<AckResult> ack(@Valid AckCommand ack) {
        return store.ack(List.of(ack)).map(results -> {
            AckResult r = results.get(0);
            if (!r.acked()) {
                String field = ack.transactionId() != null ? "transactionId" : "messageId";
                throw new ApiProblem(409, r.result(), AckResult.UNRESOLVED.equals(r.result())
                        ? "Ack unresolved" : "Lease mismatch", r.detail(),
                        List.of(new FieldError(null, AckResult.UNRESOLVED.equals(r.result()) ? field : "leaseId",
                                r.detail())));
            }
            return r;
        });
    }

    /**
     * Acks several messages, each independently. Body: {@code {"items":[ack, …]}} (1 to 1000).
     *
     * @return one result per item in order: "acked", "unresolved" or "lease-mismatch"
     */
    @POST
    @Path("/ack/batch")
    @Consumes(MediaType.WILDCARD)
    @Operation(summary = "Ack several delivered messages; per-item results")
    public Uni<AckBatchResponse> ackBatch(@Valid AckBatch body) {
        return store.ack(body.items()).map(AckBatchResponse::new);
    }
}
