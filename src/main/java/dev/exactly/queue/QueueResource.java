package dev.exactly.queue;

import dev.exactly.http.PageLimit;
import dev.exactly.consume.DeadLetters;
import dev.exactly.duplicate.DuplicateCountRepository;
import dev.exactly.engine.DedupCache;
import dev.exactly.naming.Name;
import dev.exactly.naming.Names;
import dev.exactly.problem.ApiProblem;
import io.quarkus.security.Authenticated;
import io.smallrye.mutiny.Uni;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Pattern;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.openapi.annotations.Operation;

/**
 * Queue options: POST /api/v1/configure (full replace: an omitted option returns to its
 * default, and the answer lists each one it reset), PATCH /api/v1/queues/{queue} (merge) and
 * GET /api/v1/queues/{queue}; the operators' figures: GET /api/v1/queues (paged) and
 * GET /api/v1/queues/{queue}/stats, GET /api/v1/overview (every queue's figures, paged) and
 * GET /api/v1/queues/{queue}/duplicates (per hour).
 */
@Authenticated
@Path("/api/v1")
@Produces(MediaType.APPLICATION_JSON)
public class QueueResource {

    /** Most hours a duplicates series reaches back: the rollup's kept history, 35 days. */
    static final int MAX_HOURS = 840;

    private final QueueRepository queues;
    private final QueueStatsRepository stats;
    private final DuplicateCountRepository duplicates;
    private final DedupCache cache;

    /** Constructor injection; the cache is told of every options change made here. */
    public QueueResource(QueueRepository queues, QueueStatsRepository stats, DuplicateCountRepository duplicates,
                         DedupCache cache) {
        this.queues = queues;
        this.stats = stats;
        this.duplicates = duplicates;
        this.cache = cache;
    }

    /** The queues in name order, a page at a time, with their options, partitions and messages. */
    @GET
    @Path("/queues")
    @Operation(operationId = "listQueue", summary = "List the queues (paged, by name) with their options, partitions and messages stored",
            description = "?limit= (1 to 1000, default 100), ?after= (the previous page's next cursor). Answer: "
                    + "{\"queues\":[{queue, options, partitions, messages, createdAt, updatedAt}], \"next\"?}; "
                    + "next is absent on the last page. Dead-letter queues are listed as the queues they are.")
    public Uni<QueueListResponse> list(@QueryParam("limit") @PageLimit String limit,
                                       @QueryParam("after") @Pattern(regexp = "(?!\\.{1,2}$)" + Names.NAME_CHARACTERS,
                                               message = "must be the next cursor of an earlier page") String after) {
        int pageSize = limit == null ? 100 : Integer.parseInt(limit);
        return stats.page(after, pageSize + 1).map(rows -> {
            boolean more = rows.size() > pageSize;
            List<QueueStatsRepository.QueueSize> page = more ? rows.subList(0, pageSize) : rows;
            return new QueueListResponse(page.stream().map(QueueListResponse.Entry::of).toList(),
                    more ? page.get(page.size() - 1).queue().name() : null);
        });
    }

    /**
     * The overview: a page of queues by name, optionally those whose name contains a text, each
     * with its messages, per-group lag, oldest undelivered age, dead letters and duplicates.
     */
    @GET
    @Path("/overview")
    @Operation(operationId = "queueOverview", summary = "The queues' figures at a glance (paged, by name, filtered by a part of the name)",
            description = "?limit= (1 to 1000, default 100), ?after= (the previous page's next cursor), ?contains= "
                    + "(only queues whose name contains it). Per queue: messages stored, lag and oldest undelivered "
                    + "age per consumer group, the oldest of those ages, dead letters stored and not redriven yet, "
                    + "and the duplicates answered over the window (a lower bound, as in the queue's stats).")
    public Uni<QueueOverview> overview(@QueryParam("limit") @PageLimit String limit,
                                       @QueryParam("after") @Pattern(regexp = "(?!\\.{1,2}$)" + Names.NAME_CHARACTERS,
                                               message = "must be the next cursor of an earlier page") String after,
                                       @QueryParam("contains") @Pattern(regexp = Names.NAME_CHARACTERS,
                                               message = "must be 1 to 255 characters of A-Z a-z 0-9 . _ : -") String contains) {
        int pageSize = limit == null ? 100 : Integer.parseInt(limit);
        return stats.overview(after, contains, pageSize + 1).flatMap(rows -> {
            boolean more = rows.size() > pageSize;
            List<QueueStatsRepository.OverviewRow> page = more ? rows.subList(0, pageSize) : rows;
            return stats.groupsOf(page.stream().map(QueueStatsRepository.OverviewRow::name).toList()).map(groups -> {
                List<QueueOverview.Entry> entries = new ArrayList<>(page.size());
                for (QueueStatsRepository.OverviewRow r : page) {
                    List<QueueStats.Group> g = groups.getOrDefault(r.name(), List.of()).stream()
                            .map(x -> new QueueStats.Group(x.group(), x.lag(), x.oldest(), x.ageSeconds())).toList();
                    Double oldest = g.stream().map(QueueStats.Group::oldestUndeliveredAgeSeconds)
                            .filter(java.util.Objects::nonNull).max(Double::compare).orElse(null);
                    entries.add(new QueueOverview.Entry(r.name(), r.partitions(), r.messages(), g, oldest,
                            r.deadLetterQueue(), r.deadLetters(), r.notRedriven(),
                            new QueueStats.Duplicates(r.duplicates(), r.windowSeconds())));
                }
                return new QueueOverview(entries, more ? page.get(page.size() - 1).name() : null);
            });
        });
    }

    /** A queue's duplicates answered per hour over the last hours; 404 when it does not exist. */
    @GET
    @Path("/queues/{queue}/duplicates")
    @Operation(operationId = "queueDuplicates", summary = "The duplicates a queue answered, per hour, over the last hours (up to 35 days)",
            description = "?hours= (1 to 840, default 48): the hours before the current one to include, with the "
                    + "current one. Hours inside the deduplication window are summed from the per-minute counts; "
                    + "older hours from the hourly rollup the maintenance job keeps for 35 days. Hours with no "
                    + "duplicate are absent. A lower bound, like the stats' duplicates.")
    public Uni<DuplicateSeries> duplicates(@PathParam("queue") @Name String queue,
                                           @QueryParam("hours") @Pattern(regexp = "0*([1-9][0-9]{0,1}|[1-7][0-9]{2}|8[0-3][0-9]|840)",
                                                   message = "must be a whole number from 1 to " + MAX_HOURS) String hours) {
        int n = hours == null ? 48 : Integer.parseInt(hours);
        OffsetDateTime since = OffsetDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.HOURS).minusHours(n);
        return queues.find(queue).flatMap(q -> {
            if (q == null) {
                throw ApiProblem.notFound("no queue named '" + queue + "'");
            }
            return duplicates.series(queue, since).map(rows -> new DuplicateSeries(queue,
                    q.options().get(QueueOption.DEDUP_WINDOW_SECONDS), since,
                    rows.stream().map(r -> new DuplicateSeries.Hour(r.hour(), r.duplicates())).toList()));
        });
    }

    /** A queue's partitions, messages, dead letters and per-group lag; 404 when it does not exist. */
    @GET
    @Path("/queues/{queue}/stats")
    @Operation(summary = "A queue's figures: partitions, messages stored, lag and oldest undelivered age per "
            + "consumer group, dead-letter depth, duplicates answered over the window",
            description = "Read from one database snapshot without locks. lag counts the messages a group has not "
                    + "settled, over every partition; duplicates.atLeast is a lower bound of the items answered "
                    + "duplicate within the queue's deduplication window.")
    public Uni<QueueStats> stats(@PathParam("queue") @Name String queue) {
        String dlq = DeadLetters.queueOf(queue);
        return stats.size(queue).flatMap(size -> {
            if (size == null) {
                throw ApiProblem.notFound("no queue named '" + queue + "'");
            }
            return stats.size(dlq).flatMap(dead -> stats.groups(queue).flatMap(groups -> duplicates.window(queue)
                    .flatMap(dup -> stats.destinations(queue).map(destinations -> new QueueStats(queue, size.partitions(),
                            size.messages(), dlq, dead == null ? 0 : dead.messages(),
                            groups.stream().map(g -> new QueueStats.Group(g.group(), g.lag(), g.oldest(),
                                    g.ageSeconds())).toList(),
                            dup == null ? null : new QueueStats.Duplicates(dup.atLeast(), dup.windowSeconds()),
                            destinations.stream().map(d -> {
                                String group = dev.exactly.destination.Destination.GROUP_PREFIX + d.name();
                                QueueStatsRepository.GroupLag lag = groups.stream()
                                        .filter(g -> g.group().equals(group)).findFirst().orElse(null);
                                return new QueueStats.Destination(d.name(), d.delivered(), d.failedAttempts(), d.deadLetters(),
                                        // no cursor yet: it will read every partition from its start
                                        lag == null ? size.messages() : lag.lag(), lag == null ? null : lag.ageSeconds());
                            }).toList())))));
        });
    }

    /**
     * Full replace of a queue's options, creating the queue if needed. Body:
     * {@code {"queue":"orders","options":{"dedupWindowSeconds":600}}}.
     *
     * @return the queue, plus {@code reset} (options returned to their default that changed) and
     *         {@code defaulted} (every omitted option)
     */
    @POST
    @Path("/configure")
    @Consumes(MediaType.WILDCARD)
    @Operation(summary = "Configure a queue (full replace: omitted options return to their defaults)")
    public Uni<QueueView> configure(@Valid QueueOptionsInput.Configure body) {
        String queue = body.queue();
        Map<QueueOption, Integer> options = body.options().values();
        return write(queue, options, true).map(change -> {
            List<QueueView.Reset> reset = new ArrayList<>();
            List<String> defaulted = new ArrayList<>();
            for (QueueOption o : QueueOption.values()) {
                if (options.containsKey(o)) {
                    continue;
                }
                defaulted.add(o.wire());
                int before = change.before() == null ? o.defaultValue() : change.before().options().get(o);
                if (before != o.defaultValue()) {
                    reset.add(new QueueView.Reset(o.wire(), o.toWire(before), o.toWire(o.defaultValue())));
                }
            }
            QueueView v = QueueView.of(change.after());
            return new QueueView(v.queue(), v.options(), v.createdAt(), v.updatedAt(), reset, defaulted);
        });
    }

    /**
     * Merges options into a queue, creating it if needed; omitted options keep their value.
     * Body: {@code {"options":{"retentionSeconds":86400}}}.
     */
    @PATCH
    @Path("/queues/{queue}")
    @Consumes(MediaType.WILDCARD)
    @Operation(summary = "Change some options of a queue (merge)")
    public Uni<QueueView> patch(@PathParam("queue") @Name String queue, @Valid QueueOptionsInput.Patch body) {
        Map<QueueOption, Integer> options = body.options().values();
        return write(queue, options, false).map(c -> QueueView.of(c.after()));
    }

    /**
     * Writes the options, tells the cache, and answers a refused spreadPartitions change with 409.
     *
     * @throws ApiProblem 400 for spreadPartitions on a dead-letter queue (nothing written)
     */
    private Uni<QueueRepository.Change> write(String queue, Map<QueueOption, Integer> options, boolean replace) {
        if (queue.endsWith(DeadLetters.SUFFIX) && options.getOrDefault(QueueOption.SPREAD_PARTITIONS, 0) != 0) {
            // its copies go to the partition named like their origin's (sql/R__consume.sql), which
            // a spread of its own would not be: the same key would be probed in two partitions
            throw ApiProblem.invalid(null, "options." + QueueOption.SPREAD_PARTITIONS.wire(), "queue '" + queue
                    + "' is a dead-letter queue (its name ends in " + DeadLetters.SUFFIX + "): each dead letter is "
                    + "copied to the partition named like its origin's (spread-<i> when the origin queue spreads by "
                    + "key), so it cannot spread by key itself; spread the origin queue");
        }
        return queues.write(queue, options, replace).invoke(c -> cache.queueReconfigured(queue))
                .onFailure(QueueRepository.SpreadChangeRefused.class).transform(e -> new ApiProblem(409,
                        "spread-change-refused", "Spread change refused", e.getMessage(),
                        List.of(new dev.exactly.problem.FieldError(null, "options."
                                + QueueOption.SPREAD_PARTITIONS.wire(), e.getMessage()))));
    }

    /** A queue and its options; 404 when it does not exist. */
    @GET
    @Path("/queues/{queue}")
    @Operation(operationId = "getQueue", summary = "Show a queue's options")
    public Uni<QueueView> get(@PathParam("queue") @Name String queue) {
        return queues.find(queue).map(q -> {
            if (q == null) {
                throw ApiProblem.notFound("no queue named '" + queue + "'");
            }
            return QueueView.of(q);
        });
    }
}
