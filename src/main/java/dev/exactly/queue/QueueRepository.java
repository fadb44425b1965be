package dev.exactly.queue;

import dev.exactly.db.BorrowedConnections;
import dev.exactly.db.ConnectionRetry;
import dev.exactly.db.DatabaseErrors;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.OffsetDateTime;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.stream.Collectors;

/** Data access for exactly.queues: read, create-or-replace and merge a queue's options. */
@ApplicationScoped
public class QueueRepository {

    private static final String COLUMNS = Arrays.stream(QueueOption.values()).map(QueueOption::column)
            .collect(Collectors.joining(", "));
    private static final String SELECT = "SELECT name, " + COLUMNS + ", created_at, updated_at FROM exactly.queues WHERE name = $1";
    private static final String UPSERT = "INSERT INTO exactly.queues (name, " + COLUMNS + ") VALUES ($1, "
            + placeholders(2) + ") ON CONFLICT (name) DO UPDATE SET "
            + Arrays.stream(QueueOption.values()).map(o -> o.column() + " = EXCLUDED." + o.column())
                    .collect(Collectors.joining(", "))
            // EXCLUDED.updated_at is the proposed row's default, now(): a distributed database
            // (Citus) takes no function but an immutable one in DO UPDATE SET
            + ", updated_at = EXCLUDED.updated_at RETURNING name, " + COLUMNS + ", created_at, updated_at";

    /**
     * Before a change of spreadPartitions: locks the queue's partition rows in ascending id order
     * (the global lock order), writes a new version of each (so a push that waited for one of
     * these locks runs again with a snapshot that sees the new value: sql/R__push.sql) and counts
     * those still holding a transaction hash (txns_start, the purge watermark, at or below the
     * last offset): {@code exactly.lock_queue_partitions} (sql/R__push.sql), one row per statement.
     * A new partition cannot appear meanwhile: creating one takes a key-share lock
     * on the queue row, which this transaction holds FOR UPDATE.
     */
    private static final String LOCK_PARTITIONS = "SELECT holds FROM exactly.lock_queue_partitions($1)";

    /**
     * Creates the queue row with the default options when there is none, before an existing one is locked:
     * a queue that a concurrent first push is creating (uncommitted) is waited for here (the
     * unique name), so the lock that follows always finds a row, and a spreadPartitions change
     * is checked against that push's partitions. Without it a change found no row, skipped the
     * check, and its upsert then overwrote a queue whose Default partition already held keys.
     */
    private static final String CREATE = "INSERT INTO exactly.queues (name) VALUES ($1) ON CONFLICT (name) DO NOTHING "
            + "RETURNING name";

    private final Pool pool;

    /** Constructor injection. */
    public QueueRepository(Pool pool) {
        this.pool = pool;
    }

    /**
     * A stored queue.
     *
     * @param name      queue name
     * @param options   its options
     * @param createdAt when it was created
     * @param updatedAt when its options last changed
     */
    public record StoredQueue(String name, QueueOptions options, OffsetDateTime createdAt, OffsetDateTime updatedAt) {
    }

    /**
     * An options change and what the queue held before it.
     *
     * @param before the queue before (null when it was created by this change)
     * @param after  the queue after
     */
    public record Change(StoredQueue before, StoredQueue after) {
    }

    /**
     * Refuses a change of spreadPartitions: some partition of the queue still holds transaction
     * hashes, and moving keys to other partitions would let a probe miss them.
     */
    public static final class SpreadChangeRefused extends RuntimeException {

        /** @param detail what was refused and why */
        SpreadChangeRefused(String detail) {
            super(detail);
        }
    }

    /** @return the queue, or null when it does not exist (retried once on a closed connection) */
    public Uni<StoredQueue> find(String name) {
        return ConnectionRetry.onceOnClosedConnection(() -> BorrowedConnections.execute(pool, SELECT, Tuple.of(name)))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> rows.size() == 0 ? null : toQueue(rows.iterator().next()));
    }

    /**
     * Sets a queue's options, creating the queue if needed, in one transaction that reads the
     * previous options under the row lock.
     *
     * @param name    queue name (validated)
     * @param options the changes to apply
     * @param replace true: every option not in {@code options} returns to its default (full
     *                replace, /configure); false: omitted options keep their value (merge, PATCH)
     * @return the options before and after. Retried once on a closed connection: setting the same
     *         options again is idempotent (should the first attempt have committed unseen, the
     *         second reports it as "before", so its reset list may come back empty)
     * @throws SpreadChangeRefused (as the Uni's failure, nothing written) when the change moves
     *         spreadPartitions while a partition of the queue holds a transaction hash: a key
     *         would land in another partition than the one its earlier message is probed in
     */
    public Uni<Change> write(String name, Map<QueueOption, Integer> options, boolean replace) {
        return ConnectionRetry.onceOnClosedConnection(() -> BorrowedConnections.withTransaction(pool, conn -> conn
                .preparedQuery(CREATE).execute(Tuple.of(name))
                // a row this transaction created is its own until the commit: only an existing one is read and locked
                .flatMap(created -> created.size() == 1 ? Uni.createFrom().<StoredQueue>nullItem()
                        : conn.preparedQuery(SELECT + " FOR UPDATE").execute(Tuple.of(name))
                                .map(rows -> toQueue(rows.iterator().next())))
                .flatMap(before -> {
                    QueueOptions base = replace || before == null ? QueueOptions.defaults() : before.options();
                    QueueOptions after = base.with(options);
                    int from = before == null ? QueueOption.SPREAD_PARTITIONS.defaultValue()
                            : before.options().get(QueueOption.SPREAD_PARTITIONS);
                    int to = after.get(QueueOption.SPREAD_PARTITIONS);
                    Uni<Void> checked = before == null || from == to ? Uni.createFrom().voidItem()
                            : spreadChangeAllowed(conn, name, from, to);
                    return checked.chain(() -> upsert(conn, name, after)).map(q -> new Change(before, q));
                })))
                .onFailure().transform(DatabaseErrors.CLASSIFY);
    }

    private static Uni<Void> spreadChangeAllowed(SqlClient conn, String name, int from, int to) {
        return conn.preparedQuery(LOCK_PARTITIONS).execute(Tuple.of(name)).map(rows -> {
            int holding = 0;
            for (Row r : rows) {
                if (r.getBoolean("holds")) {
                    holding++;
                }
            }
            if (holding > 0) {
                throw new SpreadChangeRefused("queue '" + name + "' cannot change spreadPartitions from " + from
                        + " to " + to + ": " + holding + " of its " + rows.size() + " partitions still hold "
                        + "transaction hashes, and a key spread differently would no longer be found as a duplicate. "
                        + "Change it before the first push, or once retention has purged every hash (or use a new queue)");
            }
            return null;
        });
    }

    private static Uni<StoredQueue> upsert(SqlClient conn, String name, QueueOptions o) {
        Tuple t = Tuple.tuple().addString(name);
        for (QueueOption opt : QueueOption.values()) {
            t.addValue(opt.toWire(o.get(opt)));
        }
        return conn.preparedQuery(UPSERT).execute(t).map(rows -> toQueue(rows.iterator().next()));
    }

    private static StoredQueue toQueue(Row r) {
        return new StoredQueue(r.getString("name"), options(r), r.getOffsetDateTime("created_at"),
                r.getOffsetDateTime("updated_at"));
    }

    /** Every option read from its exactly.queues column in a row (a named option's text column by name). */
    static QueueOptions options(Row r) {
        EnumMap<QueueOption, Integer> m = new EnumMap<>(QueueOption.class);
        for (QueueOption o : QueueOption.values()) {
            m.put(o, o.named() ? o.indexOf(r.getString(o.column())) : r.getInteger(o.column()));
        }
        return QueueOptions.defaults().with(m);
    }

    private static String placeholders(int first) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < QueueOption.values().length; i++) {
            b.append(i == 0 ? "" : ", ").append('$').append(first + i);
        }
        return b.toString();
    }
}
