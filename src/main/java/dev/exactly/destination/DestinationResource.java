package dev.exactly.destination;

import dev.exactly.http.PageLimit;
import dev.exactly.http.NoFields;
import dev.exactly.naming.Name;
import dev.exactly.problem.ApiProblem;
import dev.exactly.problem.FieldError;
import dev.exactly.queue.QueueStatsRepository;
import dev.exactly.redrive.RedriveRequest;
import io.quarkus.security.Authenticated;
import io.smallrye.mutiny.Uni;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

/**
 * A queue's destinations: PUT /api/v1/queues/{queue}/destinations/{name} (create or replace one
 * defined through the API), GET /api/v1/queues/{queue}/destinations (every destination of the
 * queue, configured or not, with its state; never a secret), GET and DELETE
 * /api/v1/queues/{queue}/destinations/{name} (one of them, as the list shows it); and per destination: list and redrive its dead letters, pause,
 * resume, replay.
 */
@Authenticated
@Path("/api/v1/queues/{queue}/destinations")
@Produces(MediaType.APPLICATION_JSON)
public class DestinationResource {

    private final DestinationRepository store;
    private final ConfiguredDestinations configured;
    private final QueueStatsRepository stats;
    private final Dispatcher dispatcher;
    private final DestinationReplays replays;
    private final DrainRepository drains;

    /** Constructor injection. */
    public DestinationResource(DestinationRepository store, ConfiguredDestinations configured, QueueStatsRepository stats,
                               Dispatcher dispatcher, DestinationReplays replays, DrainRepository drains) {
        this.store = store;
        this.configured = configured;
        this.stats = stats;
        this.dispatcher = dispatcher;
        this.replays = replays;
        this.drains = drains;
    }

    /**
     * Creates or replaces a destination of the queue. A new one receives the messages stored in the
     * queue from then on. 201 when created, 200 when replaced.
     *
     * @throws ApiProblem 400 for bad settings (nothing changed), 409 for a name the configuration
     *                    defines (this instance's, or that of any running instance on the database:
     *                    {@link DestinationRepository#CONFIGURED_LIVE_MS}; nothing written) or that
     *                    belongs to another queue's destination
     */
    @PUT
    @Path("/{name}")
    @APIResponse(responseCode = "201", description = "Created")
    @APIResponse(responseCode = "200", description = "Replaced")
    @Consumes(MediaType.WILDCARD)
    @Operation(operationId = "putDestination", summary = "Create or replace a destination of the queue (every message stored in the queue from then on is delivered to it)",
            description = "Body: {\"type\"?: \"http\" | \"sqs\" | \"eventbridge\", http: \"url\", \"signingSecret\"? (whsec_ + base64); "
                    + "sqs: \"queueUrl\"; eventbridge: \"eventBus\"? (default), \"eventSource\"? (exactly), \"detailType\"? "
                    + "(exactly.message); sqs and eventbridge: \"region\"?, \"endpoint\"?; all: \"timeoutMs\"? (10000), "
                    + "\"maxAttempts\"? (10), \"backoffMs\"? (1000), \"backoffCapMs\"? (300000), \"ordered\"? (true: one message "
                    + "of a partition in flight at a time; false: a leased batch's messages sent at once)}. 201 created, 200 replaced; "
                    + "409 for a name the configuration defines or another queue's destination has.")
    public Uni<Response> put(@PathParam("queue") @Name String queue, @PathParam("name") @Name String name,
                             @Valid @NotNull(message = "is required") DestinationInput body) {
        List<FieldError> errors = new ArrayList<>();
        DestinationRules.name(name, (f, why) -> errors.add(new FieldError(null, f, why)));
        refusedLiteral("url", body.url(), errors);
        refusedLiteral("queueUrl", body.queueUrl(), errors);
        refusedLiteral("endpoint", body.endpoint(), errors);
        if (!errors.isEmpty()) {
            throw ApiProblem.invalid(errors);
        }
        if (configured.all().containsKey(name)) {
            throw conflict(name, "destination '" + name + "' is defined in the application's configuration "
                    + "(exactly.destinations." + name + ".*): change it there");
        }
        Destination d = new Destination(name, queue, body.type(), body.url() == null ? null : URI.create(body.url()),
                body.signingSecret(), body.timeoutMs(), body.maxAttempts(), body.backoffMs(), body.backoffCapMs(), false,
                body.aws(), body.ordered());
        return store.heldElsewhere(name, queue).map(holder -> {
            if (holder != null && holder.configured()) {
                throw configuredElsewhere(name, holder.queue(), "change it there");
            }
            if (holder != null && !holder.api()) {
                throw conflict(name, "the name '" + name + "' is held on queue '" + holder.queue() + "' by the rows an earlier "
                        + "destination of that name left there (its figures, cursors and dead letters): delete them first "
                        + "(DELETE /api/v1/queues/" + holder.queue() + "/destinations/" + name + ")");
            }
            return holder;
        }).flatMap(x -> store.put(d)).map(created -> {
            if (created == null) {
                throw conflict(name, "destination '" + name + "' belongs to another queue: delete it there first");
            }
            dispatcher.replaced(d);
            return created;
        }).onFailure(DestinationRepository.ConfiguredElsewhere.class).transform(e -> configuredElsewhere(e, "change it there"))
                .flatMap(created -> viewOf(d).map(v -> Response.status(created ? 201 : 200).entity(v).build()));
    }

    /** A destination of a queue with its state as stored now (as the GET of the queue's destinations answers it). */
    private Uni<DestinationView> viewOf(Destination d) {
        String queue = d.queue();
        return store.figures(queue).flatMap(figures -> stats.groups(queue).flatMap(lags -> stats.size(queue).map(size -> {
            DestinationRepository.Figures f = figures.stream().filter(x -> x.name().equals(d.name())).findFirst().orElse(null);
            QueueStatsRepository.GroupLag lag = lags.stream().filter(g -> g.group().equals(d.group())).findFirst().orElse(null);
            return view(d, f, lag, size == null ? 0 : size.messages(), notStarted(d));
        })));
    }

    /**
     * @return every destination of the queue, configured or defined through the API, by name, with its state
     * @throws ApiProblem 404 when there is no such queue and no destination of it
     */
    @GET
    @Operation(operationId = "listDestinations", summary = "The queue's destinations, each with its state: delivered, pending, oldest undelivered age, "
            + "failed attempts, dead letters, last error (never a secret)")
    public Uni<DestinationView.Listing> list(@PathParam("queue") @Name String queue) {
        return store.list().flatMap(api -> store.figures(queue).flatMap(figures -> stats.groups(queue).flatMap(lags -> stats.size(queue).map(size -> {
            Map<String, Destination> all = new TreeMap<>();
            configured.all().values().stream().filter(d -> d.queue().equals(queue)).forEach(d -> all.put(d.name(), d));
            api.stream().filter(d -> d.queue().equals(queue)).forEach(d -> all.putIfAbsent(d.name(), d));
            List<DestinationView> out = new ArrayList<>();
            for (Destination d : all.values()) {
                DestinationRepository.Figures f = figures.stream().filter(x -> x.name().equals(d.name())).findFirst().orElse(null);
                QueueStatsRepository.GroupLag lag = lags.stream().filter(g -> g.group().equals(d.group())).findFirst().orElse(null);
                out.add(view(d, f, lag, size == null ? 0 : size.messages(), notStarted(d)));
            }
            return new DestinationView.Listing(out);
        })))).flatMap(listing -> !listing.destinations().isEmpty() ? Uni.createFrom().item(listing)
                : stats.size(queue).map(size -> {
                    if (size == null) {
                        throw ApiProblem.notFound("no queue named '" + queue + "' and no destination of it");
                    }
                    return listing;
                }));
    }

    /**
     * @return the queue's destination of that name, configured or defined through the API, with its
     *         state, as one entry of the list of the queue's destinations (never a secret)
     * @throws ApiProblem 404 when the queue has no destination of that name (another queue's
     *                    destination of that name included)
     */
    @GET
    @Path("/{name}")
    @Operation(operationId = "getDestination", summary = "One destination of the queue with its state, as an entry of the queue's "
            + "list of destinations (never a secret)")
    public Uni<DestinationView> get(@PathParam("queue") @Name String queue, @PathParam("name") @Name String name) {
        return find(queue, name).flatMap(this::viewOf);
    }

    /**
     * Deletes a destination defined through the API, with its state and dead letters (answered 204);
     * where the queue has none of that name, the rows an earlier destination of that name left on it
     * (a configured one removed from the configuration, or moved to another queue).
     *
     * @param body none, or {@code {}} ({@link NoFields})
     * @throws ApiProblem 400 for a body with any field or not JSON (nothing deleted), 404 when the queue
     *                    has no such destination nor its rows, 409 for one the configuration defines on that
     *                    queue (this instance's, or that of any running instance on the database:
     *                    {@link DestinationRepository#CONFIGURED_LIVE_MS}; nothing deleted)
     */
    @DELETE
    @Path("/{name}")
    @Consumes(MediaType.WILDCARD)
    @Operation(operationId = "deleteDestination", summary = "Delete a destination defined through the API, with its state and dead letters")
    public Uni<Void> delete(@PathParam("queue") @Name String queue, @PathParam("name") @Name String name,
                            @Valid NoFields body) {
        Destination c = configured.all().get(name);
        if (c != null && c.queue().equals(queue)) {
            throw conflict(name, "destination '" + name + "' is defined in the application's configuration "
                    + "(exactly.destinations." + name + ".*): remove it there");
        }
        // the API destination of that name on this queue, or else the rows one of that name left here
        return store.delete(queue, name, Destination.GROUP_PREFIX + name, true).map(found -> {
            if (!found) {
                throw ApiProblem.notFound("queue '" + queue + "' has no destination named '" + name + "'");
            }
            dispatcher.forget(name);
            dispatcher.refreshSoon();
            return null;
        }).onFailure(DestinationRepository.ConfiguredElsewhere.class).transform(e -> configuredElsewhere(e, "remove it there"))
                .replaceWithVoid();
    }

    /**
     * A destination's dead letters, a page at a time, oldest first: the messages it gave up on after
     * their last attempt, each with its messageId (what a redrive by {@code messageIds} names).
     *
     * @param limit most dead letters on the page, 1 to 1000 (default 100)
     * @param after the previous page's {@code next} cursor
     * @throws ApiProblem 400 for a bad limit or cursor, 404 when the queue has no such destination
     */
    @GET
    @Path("/{name}/dead-letters")
    @Operation(operationId = "listDestinationDeadLetters", summary = "A destination's dead letters, oldest first (paged)",
            description = "?limit= (1 to 1000, default 100), ?after= (the previous page's next cursor). Answer: {queue, "
                    + "destination, deadLetters: [{messageId, transactionId?, partition, offset, attempts, error?, "
                    + "deadLetteredAt, redriveRequestedAt?}], next?}, by deadLetteredAt, then partition and offset; next is "
                    + "absent on the last page. A redrive that fails again dead-letters the message anew (listed later).")
    public Uni<DestinationDeadLetters> deadLetters(@PathParam("queue") @Name String queue, @PathParam("name") @Name String name,
                                                   @QueryParam("limit") @PageLimit String limit,
                                                   @QueryParam("after") @Pattern(regexp = "[0-9]{1,18}-[0-9]{1,18}-[0-9]{1,18}",
                                                           message = "must be the next cursor of an earlier page") String after) {
        int pageSize = limit == null ? 100 : Integer.parseInt(limit);
        String[] cursor = after == null ? null : after.split("-");
        Long afterMicros = cursor == null ? null : Long.valueOf(cursor[0]);
        long afterPartition = cursor == null ? 0 : Long.parseLong(cursor[1]);
        long afterOffset = cursor == null ? 0 : Long.parseLong(cursor[2]);
        return findStarted(queue, name).flatMap(d -> store.deadLetters(name, afterMicros, afterPartition, afterOffset, pageSize + 1))
                .map(rows -> {
                    boolean more = rows.size() > pageSize;
                    List<DestinationRepository.DeadLetter> page = more ? rows.subList(0, pageSize) : rows;
                    DestinationRepository.DeadLetter last = page.isEmpty() ? null : page.get(page.size() - 1);
                    return new DestinationDeadLetters(queue, name, page.stream().map(DestinationRepository.DeadLetter::entry).toList(),
                            more ? last.atMicros() + "-" + last.partitionId() + "-" + last.entry().offset() : null);
                });
    }

    /**
     * Sends dead letters of a destination again, to that destination alone, with their original
     * messageId: those named (by messageId), or the next {@code limit} not redriven yet, oldest first.
     * A redriven message that is delivered is no longer a dead letter; one whose attempts are used up
     * again stays one. In the Lambda shape it asks for a drain ({@link Dispatcher#drainNow}).
     *
     * @return {@code {"redriven":[messageId, …],"remaining":n}}: what was asked for, and how many dead
     *         letters no redrive has asked for
     * @throws ApiProblem 404 when the queue has no such destination
     */
    @POST
    @Path("/{name}/redrive")
    @Consumes(MediaType.WILDCARD)
    @Operation(operationId = "redriveDestination", summary = "Send a destination's dead letters again, to it alone, with their original messageId",
            description = "Body: {\"messageIds\"?: [messageId, …] (1 to 1000), \"limit\"? (100; 1 to 1000)}, as a queue's "
                    + "redrive. Answer: {\"redriven\": [messageId, …], \"remaining\": n}.")
    public Uni<DestinationRedrive> redrive(@PathParam("queue") @Name String queue, @PathParam("name") @Name String name,
                                           @Valid @NotNull(message = "is required") RedriveRequest body) {
        return findStarted(queue, name).flatMap(d -> store.requestRedrive(name, body.messageIds(), body.take())
                .flatMap(ids -> store.notRedriven(name).map(left -> {
                    dispatcher.refreshSoon();
                    return new DestinationRedrive(ids, left);
                }))
                .call(r -> r.redriven().isEmpty() ? Uni.createFrom().voidItem() : dispatcher.drainNow(queue)));
    }

    /**
     * Pauses a destination: no instance sends to it until it is resumed; its messages wait in the
     * queue (a retry in progress stops; its message is sent again after the resume). 204.
     *
     * @param body none, or {@code {}} ({@link NoFields})
     * @throws ApiProblem 400 for a body with any field or not JSON, 404 when the queue has no such destination
     */
    @POST
    @Path("/{name}/pause")
    @Consumes(MediaType.WILDCARD)
    @APIResponse(responseCode = "204", description = "Paused")
    @Operation(operationId = "pauseDestination", summary = "Pause a destination: nothing is sent to it until it is resumed")
    public Uni<Void> pause(@PathParam("queue") @Name String queue, @PathParam("name") @Name String name,
                          @Valid NoFields body) {
        return paused(queue, name, true);
    }

    /**
     * Resumes a paused destination. 204. In the Lambda shape it makes the partitions that drains left
     * parked for a retry due at once ({@link DrainRepository#dueNow}) and asks for a drain
     * ({@link Dispatcher#drainNow}).
     *
     * @param body none, or {@code {}} ({@link NoFields})
     * @throws ApiProblem 400 for a body with any field or not JSON, 404 when the queue has no such destination
     */
    @POST
    @Path("/{name}/resume")
    @Consumes(MediaType.WILDCARD)
    @APIResponse(responseCode = "204", description = "Resumed")
    @Operation(operationId = "resumeDestination", summary = "Resume a paused destination")
    public Uni<Void> resume(@PathParam("queue") @Name String queue, @PathParam("name") @Name String name,
                          @Valid NoFields body) {
        return paused(queue, name, false);
    }

    /**
     * Delivers a destination's messages again from {@code fromOffset} (in every partition, or in
     * {@code partition} alone) or from {@code fromTime} on ({@link DestinationReplays}), in offset
     * order per partition, with their original messageIds; other destinations and consumer groups of
     * the queue see nothing again. A batch under way on this instance stops at its next message. In
     * the Lambda shape it asks for a drain ({@link Dispatcher#drainNow}).
     *
     * @return where delivery resumes in each partition replayed
     * @throws ApiProblem 400 for a bad body (naming the field; a partition the queue does not have),
     *                    404 when the queue has no such destination
     */
    @POST
    @Path("/{name}/replay")
    @Consumes(MediaType.WILDCARD)
    @Operation(operationId = "replayDestination", summary = "Deliver a destination's messages again from an offset or a time on",
            description = "Body: {\"fromOffset\": n} (in every partition) or {\"fromTime\": \"2026-12-05T10:00:00Z\"} "
                    + "(RFC 3339: from each partition's first message stored at or after it), with \"partition\"? to "
                    + "replay one partition only. Answer: {\"partitions\": [{\"partition\", \"nextOffset\"}, …]}.")
    public Uni<DestinationReplayed> replay(@PathParam("queue") @Name String queue, @PathParam("name") @Name String name,
                                           @Valid @NotNull(message = "is required") DestinationReplayRequest body) {
        return findStarted(queue, name)
                .flatMap(d -> replays.replay(queue, d.group(), body.partition(), body.fromOffset(), body.instant()))
                .map(partitions -> {
                    if (partitions.isEmpty() && body.partition() != null) {
                        throw ApiProblem.invalid(null, "partition", "queue '" + queue + "' has no partition named '"
                                + body.partition() + "'");
                    }
                    // this instance's workers drop the batches they hold and start again from the cursors
                    dispatcher.restart(name);
                    dispatcher.refreshSoon();
                    return new DestinationReplayed(partitions);
                })
                .call(x -> dispatcher.drainNow(queue));
    }

    private Uni<Void> paused(String queue, String name, boolean paused) {
        return findStarted(queue, name).flatMap(d -> store.start(d)).flatMap(x -> store.pause(queue, name, paused))
                // a resume ends a parked retry's wait too (the Lambda shape's): the next drain sends it
                .call(found -> found && !paused ? drains.dueNow(name) : Uni.createFrom().voidItem()).map(found -> {
            if (!found) {
                throw ApiProblem.notFound("queue '" + queue + "' has no destination named '" + name + "'");
            }
            dispatcher.paused(name, paused);
            return null;
        }).call(x -> paused ? Uni.createFrom().voidItem() : dispatcher.drainNow(queue)).replaceWithVoid();
    }

    /** The destination of that name on that queue, configured or defined through the API; a 404 when none. */
    private Uni<Destination> find(String queue, String name) {
        Destination c = configured.all().get(name);
        // a configured destination on another queue: an API destination of that name may hold this one
        // (the configured one then waits for it: Dispatcher#startIfFree)
        Uni<Destination> found = c != null && c.queue().equals(queue) ? Uni.createFrom().item(c) : store.get(name);
        return found.flatMap(d -> {
            if (d != null && d.queue().equals(queue)) {
                return Uni.createFrom().item(d);
            }
            // another instance's configuration may define it: this one knows neither its settings nor its
            // delivery, and says where it is defined rather than only that it is absent here
            return store.configuredQueue(name).<Destination>map(q -> {
                throw ApiProblem.notFound("queue '" + queue + "' has no destination named '" + name + "'"
                        + (q == null || !q.equals(queue) ? "" : " known to this instance: the configuration of another "
                        + "instance defines it (exactly.destinations." + name + ".*; " + MARKED + "); ask that instance, "
                        + "or add it to this one's configuration"));
            });
        });
    }

    /**
     * {@link #find}, refusing with 409 a configured destination not started because its name is held
     * on another queue (what a pause, resume, replay, redrive or its dead letters would act on are the
     * holder's rows, not its own).
     */
    private Uni<Destination> findStarted(String queue, String name) {
        return find(queue, name).map(d -> {
            String why = notStarted(d);
            if (why != null) {
                throw conflict(name, "destination '" + name + "' is " + why);
            }
            return d;
        });
    }

    /** Adds the address guard's refusal of a URL's host literal (checked valid before), if any. */
    private void refusedLiteral(String field, String url, List<FieldError> errors) {
        if (url != null) {
            String refused = configured.guard().refusedLiteral(URI.create(url).getHost());
            if (refused != null) {
                errors.add(new FieldError(null, field, refused));
            }
        }
    }

    /**
     * The 409 for a name that a running instance's configuration defines on {@code queue}, as its
     * figures row's live mark says (this instance's configuration may not define it: a rolling deploy
     * that adds it).
     *
     * @param action what to do instead, e.g. "change it there"
     */
    private static ApiProblem configuredElsewhere(String name, String queue, String action) {
        return conflict(name, "destination '" + name + "' is defined in the configuration of another instance "
                + "(exactly.destinations." + name + ".*, on queue '" + queue + "'; " + MARKED + "), whichever instance "
                + "answers: " + action + ", or, once no instance configures it, wait until "
                + DestinationRepository.CONFIGURED_LIVE_MS / 1000 + " s after its last mark");
    }

    /** {@link #configuredElsewhere(String, String, String)} for the repository's refusal {@code e}. */
    private static ApiProblem configuredElsewhere(Throwable e, String action) {
        DestinationRepository.ConfiguredElsewhere c = (DestinationRepository.ConfiguredElsewhere) e;
        return configuredElsewhere(c.name(), c.queue(), action);
    }

    /** How the database knows another instance's configured destination, as the 404 and 409 say it. */
    private static final String MARKED = "an instance marks the configured destinations it runs every "
            + DestinationRepository.CONFIGURED_MARK_EVERY_MS / 1000 + " s, and this one was marked less than "
            + DestinationRepository.CONFIGURED_LIVE_MS / 1000 + " s ago";

    private static ApiProblem conflict(String name, String why) {
        return new ApiProblem(409, "destination-conflict", "Destination conflict", why, List.of(new FieldError(null, "name", why)));
    }

    /**
     * @param stored the queue's messages: the pending count of a destination whose group has no
     *               cursor yet (it started before its queue had a partition and never popped since),
     *               which will read every partition from its start
     */
    /** Why a configured destination delivers nothing yet (its name held on another queue), as this instance read it; else null. */
    private String notStarted(Destination d) {
        DestinationRepository.Holder h = d.configured() ? dispatcher.clash(d.name()) : null;
        return h == null ? null : "not started: the name '" + d.name() + "' is held on queue '" + h.queue() + "' by "
                + (h.api() ? "a destination defined through the API" : h.configured()
                ? "a destination another running instance's configuration defines there"
                : "the rows an earlier destination of that name left there")
                + "; names are unique across queues: " + (h.configured() ? "give one of them another name"
                : "DELETE /api/v1/queues/" + h.queue() + "/destinations/" + d.name());
    }

    private static DestinationView view(Destination d, DestinationRepository.Figures f, QueueStatsRepository.GroupLag lag,
                                        long stored, String notStarted) {
        DestinationView.State state = new DestinationView.State(f != null && f.paused(), f == null ? 0 : f.delivered(),
                lag == null ? (f == null ? 0 : stored) : lag.lag(),
                lag == null ? null : lag.oldest(), lag == null ? null : lag.ageSeconds(), f == null ? 0 : f.failedAttempts(),
                f == null ? 0 : f.deadLetters(), notStarted != null ? notStarted : f == null ? null : f.lastError(),
                notStarted != null ? null : f == null ? null : f.lastErrorAt());
        Destination.Aws a = d.aws() == null ? new Destination.Aws(null, null, null, null, null, null) : d.aws();
        return new DestinationView(d.name(), d.queue(), d.type(), d.url() == null ? null : d.url().toString(),
                d.signingSecret() != null, a.queueUrl(), a.eventBus(), a.source(), a.detailType(), a.region(), a.endpoint(),
                d.timeoutMs(), d.maxAttempts(), d.backoffMs(), d.backoffCapMs(), d.ordered(), d.configured() ? "configuration" : "api",
                state);
    }
}
