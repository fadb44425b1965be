package dev.exactly.queue;

import dev.exactly.db.BorrowedConnections;
import dev.exactly.db.DatabaseErrors;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Data access for the operators' queue figures (functions in sql/R__stats.sql): a page of queues
 * with their partition and message counts, and a queue's per-consumer-group lag. Read-only; each
 * figure is as of one statement's snapshot, without locks.
 */
@ApplicationScoped
public class QueueStatsRepository {

    private static final String OPTION_COLUMNS = Arrays.stream(QueueOption.values()).map(o -> "q." + o.column())
            .collect(Collectors.joining(", "));

    private static final String PAGE = "SELECT s.r_name, s.r_partitions, s.r_messages, " + OPTION_COLUMNS
            + ", q.created_at, q.updated_at FROM exactly.queue_page($1, $2, $3) s JOIN exactly.queues q ON q.id = s.r_id "
            + "ORDER BY s.r_name";

    private static final String GROUPS = "SELECT r_group, r_lag, r_oldest, "
            + "extract(epoch FROM clock_timestamp() - r_oldest)::float8 AS age FROM exactly.queue_group_lag($1)";

    private static final String OVERVIEW = "SELECT r_name, r_partitions, r_messages, r_dead_letter_queue, r_dead_letters, "
            + "r_not_redriven, r_duplicates, r_window FROM exactly.queue_overview($1, $2, $3)";

    private static final String GROUPS_OF = "SELECT n.name, g.r_group, g.r_lag, g.r_oldest, "
            + "extract(epoch FROM clock_timestamp() - g.r_oldest)::float8 AS age "
            + "FROM unnest($1::text[]) AS n(name) CROSS JOIN LATERAL exactly.queue_group_lag(n.name) g "
            + "ORDER BY n.name, g.r_group";

    private final Pool pool;

    /** Constructor injection. */
    public QueueStatsRepository(Pool pool) {
        this.pool = pool;
    }

    /**
     * A queue with its size.
     *
     * @param queue      the queue and its options
     * @param partitions partitions it has
     * @param messages   messages it stores (kept data; purged messages are not counted)
     */
    public record QueueSize(QueueRepository.StoredQueue queue, long partitions, long messages) {
    }

    /**
     * One consumer group's backlog on a queue.
     *
     * @param group      the consumer group
     * @param lag        messages not yet settled (acked completed or dead-lettered) for the group
     * @param oldest     creation time of the oldest of them, or null when none waits
     * @param ageSeconds its age by the database clock, seconds, or null
     */
    public record GroupLag(String group, long lag, OffsetDateTime oldest, Double ageSeconds) {
    }

    /**
     * A queue's figures in the overview.
     *
     * @param name            queue name
     * @param partitions      partitions it has
     * @param messages        messages it stores
     * @param deadLetterQueue its dead-letter queue's name
     * @param deadLetters     messages stored in the dead-letter queue
     * @param notRedriven     of those, the ones not redriven yet
     * @param duplicates      duplicates answered over its window, as written so far (a lower bound)
     * @param windowSeconds   its deduplication window
     */
    public record OverviewRow(String name, long partitions, long messages, String deadLetterQueue, long deadLetters,
                              long notRedriven, long duplicates, int windowSeconds) {
    }

    /**
     * A page of the overview: queues in name order after {@code after} whose name contains
     * {@code contains}.
     *
     * @param after    the last name of the previous page, or null
     * @param contains a part of the name, or null for every queue
     * @param limit    most queues
     * @throws dev.exactly.db.StoreUnavailableException (as the Uni's failure) when the database is away
     */
    public Uni<List<OverviewRow>> overview(String after, String contains, int limit) {
        return BorrowedConnections.execute(pool, OVERVIEW, Tuple.of(after, contains, limit))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> {
                    List<OverviewRow> out = new ArrayList<>(rows.size());
                    for (Row r : rows) {
                        out.add(new OverviewRow(r.getString("r_name"), r.getLong("r_partitions"),
                                r.getLong("r_messages"), r.getString("r_dead_letter_queue"),
                                r.getLong("r_dead_letters"), r.getLong("r_not_redriven"),
                                r.getLong("r_duplicates"), r.getInteger("r_window")));
                    }
                    return out;
                });
    }

    /**
     * @param queues queue names
     * @return per queue name, the backlog of each of its consumer groups, by group name (a queue no
     *         group has read from is absent)
     */
    public Uni<Map<String, List<GroupLag>>> groupsOf(List<String> queues) {
        if (queues.isEmpty()) {
            return Uni.createFrom().item(Map.of());
        }
        return BorrowedConnections.execute(pool, GROUPS_OF, Tuple.of(queues.toArray(new String[0])))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> {
                    Map<String, List<GroupLag>> out = new HashMap<>();
                    for (Row r : rows) {
                        out.computeIfAbsent(r.getString("name"), k -> new ArrayList<>())
                                .add(new GroupLag(r.getString("r_group"), r.getLong("r_lag"),
                                        r.getOffsetDateTime("r_oldest"), r.getDouble("age")));
                    }
                    return out;
                });
    }

    /**
     * Queues in name order after {@code after}.
     *
     * @param after the last name of the previous page, or null for the first page
     * @param limit most queues
     * @throws dev.exactly.db.StoreUnavailableException (as the Uni's failure) when the database is away
     */
    public Uni<List<QueueSize>> page(String after, int limit) {
        return sizes(after, null, limit);
    }

    /** @return the queue's size, or null when it does not exist */
    public Uni<QueueSize> size(String queue) {
        return sizes(null, queue, 1).map(l -> l.isEmpty() ? null : l.get(0));
    }

    private Uni<List<QueueSize>> sizes(String after, String only, int limit) {
        return BorrowedConnections.execute(pool, PAGE, Tuple.of(after, only, limit))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> {
                    List<QueueSize> out = new ArrayList<>(rows.size());
                    for (Row r : rows) {
                        QueueRepository.StoredQueue q = new QueueRepository.StoredQueue(r.getString("r_name"),
                                QueueRepository.options(r), r.getOffsetDateTime("created_at"),
                                r.getOffsetDateTime("updated_at"));
                        out.add(new QueueSize(q, r.getLong("r_partitions"), r.getLong("r_messages")));
                    }
                    return out;
                });
    }

    /** @return the backlog of every consumer group that has read from the queue, by group name */
    public Uni<List<GroupLag>> groups(String queue) {
        return BorrowedConnections.execute(pool, GROUPS, Tuple.of(queue))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> {
                    List<GroupLag> out = new ArrayList<>(rows.size());
                    for (Row r : rows) {
                        out.add(new GroupLag(r.getString("r_group"), r.getLong("r_lag"),
                                r.getOffsetDateTime("r_oldest"), r.getDouble("age")));
                    }
                    return out;
                });
    }

    private static final String DESTINATIONS = "SELECT s.name, s.delivered, s.failed_attempts, "
            + "(SELECT count(*) FROM exactly.destination_dead_letters d WHERE d.destination = s.name) AS dead_letters "
            + "FROM exactly.destination_state s WHERE s.queue = $1 ORDER BY s.name";

    /**
     * A destination's delivery figures (sql/V21__destinations.sql; its lag is its consumer group's,
     * {@code destination:<name>}).
     *
     * @param name           destination name
     * @param delivered      messages delivered
     * @param failedAttempts attempts that did not deliver
     * @param deadLetters    messages dead-lettered for it now
     */
    public record DestinationFigures(String name, long delivered, long failedAttempts, long deadLetters) {
    }

    /** @return the delivery figures of every destination of the queue that has started, by name */
    public Uni<List<DestinationFigures>> destinations(String queue) {
        return BorrowedConnections.execute(pool, DESTINATIONS, Tuple.of(queue))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> {
                    List<DestinationFigures> out = new ArrayList<>(rows.size());
                    for (Row r : rows) {
                        out.add(new DestinationFigures(r.getString("name"), r.getLong("delivered"),
                                r.getLong("failed_attempts"), r.getLong("dead_letters")));
                    }
                    return out;
                });
    }
}
