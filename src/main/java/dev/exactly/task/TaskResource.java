package dev.exactly.task;

import dev.exactly.http.NoFields;
import dev.exactly.naming.Name;
import dev.exactly.problem.ApiProblem;
import dev.exactly.problem.FieldError;
import io.quarkus.security.Authenticated;
import io.smallrye.mutiny.Uni;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Pattern;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.Operation;

/**
 * The task queue's HTTP API (a thin adapter over {@link TaskService}). Routes under
 * /api/v1/tasks/{id} find the task in the queue named by the {@code queue} query parameter,
 * "default" when absent.
 */
@Authenticated
@Path(TaskResource.PATH)
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.WILDCARD)
public class TaskResource {

    /** The task routes' common path. */
    public static final String PATH = "/api/v1/tasks";

    /** The state labels a listing may filter on. */
    static final String STATES = "queued|scheduled|running|retrying|completed|dead";
    /** A UUID written out in full. */
    static final String UUID_TEXT = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}";

    /** How an enqueue is deduplicated; the key's construction is in docs/tasks.md, "The autoDedupe key". */
    static final String KEY_DOC = "A task id is unique in its queue while the task exists. With autoDedupe, the key is "
            + "SHA-256 over the type and the RFC 8785 canonical data, each length-prefixed, and is checked against the "
            + "queue's pending tasks only (queued, scheduled, running, retrying). A duplicate is not an error: 200, "
            + "status \"duplicate\", duplicateOf names the existing task, matchedOn says \"id\" or \"autoDedupe\".";

    private static final String TASK_FIELDS = "Task: {\"queue\"? (default \"default\"), \"id\"? (1-255 of "
            + "[A-Za-z0-9._:-]; a UUIDv7 when absent), \"type\" (1-256 UTF-8 bytes), \"data\" (any JSON, required), "
            + "\"autoDedupe\"? (false), \"maxRetries\"? (3, 0-1000), \"retryDelaySeconds\"? (0), \"priority\"? (0, "
            + "higher first), \"runAt\"? (RFC 3339 date-time)}. ";

    private final TaskService tasks;
    private final TaskConfig config;

    /** Constructor injection. */
    public TaskResource(TaskService tasks, TaskConfig config) {
        this.tasks = tasks;
        this.config = config;
    }

    /** Enqueues one task: {@code {status, queue, taskId, duplicateOf?, matchedOn?}}. */
    @POST
    @Operation(summary = "Enqueue a task (exact deduplication by id and, with autoDedupe, by payload)",
            description = TASK_FIELDS + KEY_DOC)
    public Uni<EnqueueResult> enqueue(@Valid TaskRequest body) {
        return tasks.enqueue(List.of(body.task(null))).map(r -> EnqueueResult.of(null, r.get(0)));
    }

    /** Enqueues many tasks, {@code {"tasks":[...]}}, answering per task in order. */
    @POST
    @Path("/batch")
    @Operation(summary = "Enqueue many tasks, each with its own verdict",
            description = "Body: {\"tasks\":[task, ...]} (1 to exactly.tasks.max-batch-items); answer: {\"results\":[{index, "
                    + "status, queue, taskId, duplicateOf?, matchedOn?}]} in request order. Every task is validated before any is "
                    + "written; then each is committed on its own, in order (a later task sees the earlier ones). "
                    + TASK_FIELDS + KEY_DOC)
    public Uni<BatchResponse> batch(@Valid TaskRequest.Batch body) {
        if (body.tasks().size() > config.maxBatchItems()) {
            throw ApiProblem.invalid(null, "tasks", "at most " + config.maxBatchItems() + " tasks per request");
        }
        List<NewTask> list = new ArrayList<>(body.tasks().size());
        for (int i = 0; i < body.tasks().size(); i++) {
            list.add(body.tasks().get(i).task(i));
        }
        return tasks.enqueue(list).map(rs -> {
            List<EnqueueResult> out = new ArrayList<>(rs.size());
            for (int i = 0; i < rs.size(); i++) {
                out.add(EnqueueResult.of(i, rs.get(i)));
            }
            return new BatchResponse(out);
        });
    }

    /** Lists a queue's tasks, in enqueue order, a page at a time. */
    @GET
    @Operation(operationId = "listTask", summary = "List a queue's tasks, optionally of one state, a page at a time",
            description = "?queue= (default \"default\"), ?state= (all when absent), ?limit= (default 100), "
                    + "?after= (the previous page's next cursor). Answer: {\"tasks\":[...], \"next\"?}, in enqueue "
                    + "order; next is absent on the last page.")
    public Uni<TaskListResponse> list(@QueryParam("queue") @Name String queue,
                                      @QueryParam("state") @Pattern(regexp = STATES, message = "must be one of "
                                              + "queued, scheduled, running, retrying, completed, dead") String state,
                                      @QueryParam("limit") String limit, @QueryParam("after") String after) {
        int size = limit == null ? 100 : (int) number(limit, config.maxPageSize(), "limit",
                "must be a whole number from 1 to " + config.maxPageSize());
        long cursor = after == null ? 0 : number(after, Long.MAX_VALUE, "after", "must be the next cursor of an earlier page");
        return tasks.list(queue(queue), state, cursor, size).map(page -> new TaskListResponse(
                page.tasks().stream().map(t -> TaskView.of(t, false)).toList(),
                page.next() == null ? null : Long.toString(page.next())));
    }

    /** Claims tasks for a worker. */
    @POST
    @Path("/claim")
    @Operation(summary = "Claim tasks under a lease",
            description = "Body: {\"queue\"? (default \"default\"), \"types\"? (only these types), \"limit\"? (1), "
                    + "\"leaseSeconds\"?}. Each task goes to one worker, by priority (higher first), runAt, then "
                    + "enqueue order; each claim is one attempt. Answer: {\"tasks\":[{..., leaseId, leaseExpiresAt}]}.")
    public Uni<ClaimResponse> claim(@Valid WorkerRequest.Claim body) {
        atMost("limit", body.limit(), config.maxClaimLimit());
        int lease = atMost("leaseSeconds", body.leaseSeconds(), config.maxLeaseSeconds());
        ClaimCommand c = new ClaimCommand(body.queue(), body.types(), body.limit(), lease == 0 ? config.defaultLeaseSeconds() : lease);
        return tasks.claim(c).map(list -> new ClaimResponse(list.stream().map(t -> TaskView.of(t, true)).toList()));
    }

    /** A task's state, attempts and last error. */
    @GET
    @Path("/{id}")
    @Operation(operationId = "getTask", summary = "Read a task (state, attempts, last error, result)",
            description = "The task is looked up in the queue named by ?queue= (default \"default\").")
    public Uni<TaskView> get(@PathParam("id") @Name String id, @QueryParam("queue") @Name String queue) {
        String q = queue(queue);
        return tasks.find(q, id).map(t -> {
            if (t == null) {
                throw notFound(q, id);
            }
            return TaskView.of(t, false);
        });
    }

    /** Completes a task under its lease. */
    @POST
    @Path("/{id}/complete")
    @Operation(summary = "Complete a claimed task",
            description = "Body: {\"leaseId\", \"result\"? (any JSON)}; ?queue= names the queue (default "
                    + "\"default\"). Only the current, unexpired lease completes the task: a stale worker "
                    + "(its lease expired, the task maybe claimed again) gets 409 and changes nothing.")
    public Uni<TaskView> complete(@PathParam("id") @Name String id, @QueryParam("queue") @Name String queue,
                                  @Valid WorkerRequest.Complete body) {
        return tasks.complete(queue(queue), id, body.leaseId(), body.result() == null ? null : body.result().bytes())
                .map(ch -> answer(queue(queue), id, ch));
    }

    /** Fails a task under its lease. */
    @POST
    @Path("/{id}/fail")
    @Operation(summary = "Fail a claimed task (retry after the delay, dead after maxRetries)",
            description = "Body: {\"leaseId\", \"error\"}; ?queue= names the queue (default \"default\"). The task "
                    + "is claimable again retryDelaySeconds later, or is dead when this was attempt maxRetries + 1. "
                    + "Only the current, unexpired lease may fail it (else 409).")
    public Uni<TaskView> fail(@PathParam("id") @Name String id, @QueryParam("queue") @Name String queue,
                              @Valid WorkerRequest.Fail body) {
        return tasks.fail(queue(queue), id, body.leaseId(), body.error()).map(ch -> answer(queue(queue), id, ch));
    }

    /** Extends a claimed task's lease (a heartbeat). */
    @POST
    @Path("/{id}/extend")
    @Operation(summary = "Extend a claimed task's lease (heartbeat)",
            description = "Body: {\"leaseId\", \"leaseSeconds\"?}; ?queue= names the queue (default \"default\"). "
                    + "The current, unexpired lease then ends leaseSeconds from now; an expired or taken-over lease "
                    + "gets 409.")
    public Uni<TaskView> extend(@PathParam("id") @Name String id, @QueryParam("queue") @Name String queue,
                                @Valid WorkerRequest.Extend body) {
        int lease = atMost("leaseSeconds", body.leaseSeconds(), config.maxLeaseSeconds());
        return tasks.extend(queue(queue), id, body.leaseId(), lease == 0 ? config.defaultLeaseSeconds() : lease)
                .map(ch -> answer(queue(queue), id, ch));
    }

    /**
     * Deletes a task.
     *
     * @param body none, or {@code {}} ({@link NoFields})
     * @throws ApiProblem 400 for a body with any field or not JSON (nothing deleted), 404 when the queue
     *                    has no such task, 409 for a running task whose lease is held and not named
     */
    @DELETE
    @Path("/{id}")
    @Operation(summary = "Delete a task",
            description = "?queue= names the queue (default \"default\"). A running task whose lease is still "
                    + "held needs ?leaseId= (its current lease), else 409. 204 when deleted; its id and its "
                    + "autoDedupe key are free again. No body, or {}.")
    public Uni<Void> delete(@PathParam("id") @Name String id, @QueryParam("queue") @Name String queue,
                            @QueryParam("leaseId") @Pattern(regexp = UUID_TEXT, message = "must be a UUID") String leaseId,
                            @Valid NoFields body) {
        String q = queue(queue);
        return tasks.delete(q, id, leaseId == null ? null : UUID.fromString(leaseId)).map(ch -> {
            answer(q, id, ch);
            return null;
        });
    }

    private static String queue(String queue) {
        return queue == null ? TaskRequest.DEFAULT_QUEUE : queue;
    }

    /** @return the value, 0 when absent; 400 naming the field when it is above {@code max} */
    private static int atMost(String field, Integer value, int max) {
        if (value != null && value > max) {
            throw ApiProblem.invalid(null, field, "must be an integer from 1 to " + max);
        }
        return value == null ? 0 : value;
    }

    /** @return a query parameter's whole number from 1 to {@code max}; 400 naming it otherwise */
    private static long number(String text, long max, String field, String message) {
        try {
            long v = Long.parseLong(text);
            if (v >= 1 && v <= max) {
                return v;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw ApiProblem.invalid(null, field, message);
    }

    private static TaskView answer(String queue, String id, LeasedChange ch) {
        if (ch.notFound()) {
            throw notFound(queue, id);
        }
        if (ch.refusal() != null) {
            throw new ApiProblem(409, "lease-conflict", "Lease conflict", ch.refusal(),
                    List.of(new FieldError(null, "leaseId", ch.refusal())));
        }
        return TaskView.of(ch.task(), false);
    }

    private static ApiProblem notFound(String queue, String id) {
        return ApiProblem.notFound("no task '" + id + "' in queue '" + queue + "'");
    }
}
