package dev.exactly.redrive;

import dev.exactly.http.PageLimit;
import dev.exactly.consume.DeadLetters;
import dev.exactly.naming.Name;
import dev.exactly.problem.ApiProblem;
import dev.exactly.queue.QueueRepository;
import io.quarkus.security.Authenticated;
import io.smallrye.mutiny.Uni;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Pattern;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;

/**
 * POST /api/v1/queues/{queue}/redrive: moves dead letters back to the queue they came from;
 * GET /api/v1/queues/{queue}/dead-letters lists them without a pop.
 */
@Authenticated
@Path("/api/v1")
@Produces(MediaType.APPLICATION_JSON)
public class RedriveResource {

    private final RedriveService redrives;
    private final RedriveRepository repository;
    private final QueueRepository queues;

    /** Constructor injection. */
    public RedriveResource(RedriveService redrives, RedriveRepository repository, QueueRepository queues) {
        this.redrives = redrives;
        this.repository = repository;
        this.queues = queues;
    }

    /**
     * The queue's dead letters, a page at a time, without popping them: each copy with its origin
     * and whether it was redriven. 404 when the queue does not exist.
     */
    @GET
    @Path("/queues/{queue}/dead-letters")
    @Operation(operationId = "listDeadLetters", summary = "List a queue's dead letters without popping them (paged)",
            description = "?limit= (1 to 1000, default 50), ?after= (the previous page's next cursor). Answer: "
                    + "{queue, deadLetterQueue, deadLetters:[{messageId, partition, offset, createdAt, payloadBytes, "
                    + "origin, redrivenTo?, redrivenAt?}], next?}, by partition and offset; next is absent on the "
                    + "last page. Redriven copies stay listed, with the message their redrive stored.")
    public Uni<DeadLetterPage> deadLetters(@PathParam("queue") @Name String queue,
                                           @QueryParam("limit") @PageLimit String limit,
                                           @QueryParam("after") @Pattern(regexp = "[0-9]{1,18}-[0-9]{1,18}",
                                                   message = "must be the next cursor of an earlier page") String after) {
        int pageSize = limit == null ? 50 : Integer.parseInt(limit);
        Long afterPid = after == null ? null : Long.valueOf(after.substring(0, after.indexOf('-')));
        long afterOffset = after == null ? 0 : Long.parseLong(after.substring(after.indexOf('-') + 1));
        String dlq = DeadLetters.queueOf(queue);
        return queues.find(queue).flatMap(q -> {
            if (q == null) {
                throw ApiProblem.notFound("no queue named '" + queue + "'");
            }
            return repository.page(dlq, afterPid, afterOffset, pageSize + 1).map(rows -> {
                boolean more = rows.size() > pageSize;
                List<RedriveRepository.Listed> page = more ? rows.subList(0, pageSize) : rows;
                RedriveRepository.Listed last = page.isEmpty() ? null : page.get(page.size() - 1);
                return new DeadLetterPage(queue, dlq, page.stream().map(l -> new DeadLetterPage.Entry(l.messageId(),
                        l.partition(), l.offset(), l.createdAt(), l.payloadBytes(), l.originJson(), l.redrivenTo(),
                        l.redrivenAt())).toList(), more ? last.partitionId() + "-" + last.offset() : null);
            });
        });
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
