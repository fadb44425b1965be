package dev.exactly.push;

import dev.exactly.config.ExactlyConfig;
import dev.exactly.destination.Dispatcher;
import dev.exactly.engine.PushEngine;
import dev.exactly.engine.PushStatus;
import dev.exactly.http.LogContext;
import dev.exactly.problem.ApiProblem;
import dev.exactly.wiring.PayloadMismatchMetrics;
import io.quarkus.hibernate.validator.runtime.jaxrs.ResteasyReactiveViolationException;
import io.quarkus.security.Authenticated;
import io.smallrye.mutiny.Uni;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.Validator;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import java.util.Set;
import org.jboss.logging.Logger;

/** POST /api/v1/push: push messages, each answered with an exact deduplication verdict. */
@Authenticated
@Path("/api/v1/push")
public class PushResource {

    private static final Logger LOG = Logger.getLogger(PushResource.class);

    private final PushEngine engine;
    private final ExactlyConfig config;
    private final PayloadMismatchMetrics mismatches;
    private final Dispatcher destinations;
    private final Validator validator;

    /** Constructor injection. */
    public PushResource(PushEngine engine, ExactlyConfig config, PayloadMismatchMetrics mismatches, Dispatcher destinations,
                        Validator validator) {
        this.engine = engine;
        this.config = config;
        this.mismatches = mismatches;
        this.destinations = destinations;
        this.validator = validator;
    }

    /**
     * Pushes items. A transactionId already stored in the same queue partition within the
     * queue's deduplication window writes nothing and answers "duplicate" with the original
     * message's id, and whether the payload matched; duplicates inside the request are settled
     * first-wins. In a queue whose payloadMismatch option is "reject", a duplicate whose payload
     * differs is "rejected" with its own 422 problem in its result; a request of that one item is
     * answered 422 problem+json as a whole (the IETF Idempotency-Key draft's answer to a key
     * reused with another payload). Either way nothing was written for that item, and the other
     * items of the request are settled as usual.
     *
     * <p>The body's constraints are checked here rather than by {@code @Valid}: directly
     * ({@link PushRequest#valid()}), and by Hibernate Validator only when that finds one broken, whose
     * violations are then the 400 problem, as a method's {@code @Valid} parameter's are.
     *
     * @param body the items, at most exactly.push.max-items; the body at most exactly.push.max-body-bytes bytes
     * @return per item: index, queue, partition, transactionId, messageId, status, payloadMatches?, problem?
     * @throws ResteasyReactiveViolationException 400 when a constraint of the body is broken
     * @throws ApiProblem 422 when the request's only item is rejected for a payload mismatch
     */
    @POST
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "Push messages with exact deduplication by transactionId",
            description = "Body: {\"items\":[{\"queue\",\"partition\"?,\"transactionId\"?,\"payload\",\"traceId\"?,\"headers\"?}]}. "
                    + "Each item is answered in input order with status queued, duplicate (nothing written; the "
                    + "original's messageId and payloadMatches) or rejected (another payload under a queue's "
                    + "payloadMismatch reject; a one-item request is answered 422 problem+json). On a queue with "
                    + "spreadPartitions the transactionId chooses the partition: an item naming one is refused (400).")
    public Uni<PushResponse> push(PushRequest body) {
        if (!body.valid()) {
            Set<ConstraintViolation<PushRequest>> broken = validator.validate(body);
            if (!broken.isEmpty()) {
                throw new ResteasyReactiveViolationException(broken);
            }
        }
        if (body.items().size() > config.push().maxItems()) {
            throw ApiProblem.invalid(null, "items", "at most " + config.push().maxItems() + " items per request");
        }
        var commands = body.items().stream().map(PushRequest.Item::command).toList();
        LogContext.pushTo(commands);
        return engine.push(commands).call(verdicts -> destinations.stored(
                // committed: the queues' destinations deliver without waiting for a timer or schedule
                verdicts.stream().filter(v -> v.status() == PushStatus.QUEUED).map(v -> v.queue()).distinct().toList()))
                .map(verdicts -> {
            if (LOG.isDebugEnabled()) {
                LOG.debugf("push: %d items, %d duplicate", verdicts.size(),
                        verdicts.stream().filter(v -> v.status() == PushStatus.DUPLICATE).count());
            }
            mismatches.count(PayloadMismatchMetrics.Entry.PUSH, verdicts);
            if (verdicts.size() == 1 && verdicts.get(0).status() == PushStatus.REJECTED) {
                throw PushResult.mismatch(verdicts.get(0), "items", 0);
            }
            return new PushResponse(verdicts.stream().map(v -> PushResult.of(v, "items", v.index())).toList());
        });
    }
}
