package dev.exactly.retention;

import dev.exactly.db.BorrowedConnections;
import dev.exactly.db.DatabaseErrors;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;

/**
 * Data access for retention: which partitions have something to purge, and
 * {@code exactly.purge_partition} (sql/R__retention.sql), one bounded step under one partition's
 * row lock, in its own short transaction.
 */
@ApplicationScoped
public class RetentionRepository {

    // Without locks: a partition whose oldest kept message is past retention, or whose oldest
    // kept hash is below the data watermark and outside the window (or missing).
    private static final String CANDIDATES = "SELECT p.id FROM exactly.partitions p "
            + "JOIN exactly.queues q ON q.id = p.queue_id "
            + "WHERE (q.retention_seconds > 0 AND p.data_start <= p.last_offset AND EXISTS ("
            + "    SELECT 1 FROM exactly.messages m WHERE m.partition_id = p.id AND m.\"offset\" = p.data_start"
            + "      AND m.created_at < clock_timestamp() - make_interval(secs => q.retention_seconds)))"
            + "   OR (p.txns_start < p.data_start AND NOT EXISTS ("
            + "    SELECT 1 FROM exactly.txn_hashes t WHERE t.partition_id = p.id AND t.\"offset\" = p.txns_start AND t.\"offset\" >= 0"
            + "      AND q.dedup_window_seconds > 0"
            + "      AND t.created_at >= clock_timestamp() - make_interval(secs => q.dedup_window_seconds)))"
            + "ORDER BY p.id";

    private static final String PURGE = "SELECT purged_messages, purged_hashes, data_watermark, txns_watermark, more "
            + "FROM exactly.purge_partition($1, $2)";

    private final Pool pool;

    /** Constructor injection. */
    public RetentionRepository(Pool pool) {
        this.pool = pool;
    }

    /**
     * One purge step's result.
     *
     * @param purgedMessages message rows deleted
     * @param purgedHashes   hash rows deleted
     * @param dataStart      the data watermark after the step (messages below it are gone)
     * @param txnsStart      the purge watermark after the step (hashes below it are gone)
     * @param more           a limit was reached: call again
     */
    public record Step(int purgedMessages, int purgedHashes, long dataStart, long txnsStart, boolean more) {
    }

    /** @return ids of partitions with data past retention or hashes past both watermark and window, ascending */
    public Uni<List<Long>> candidates() {
        return BorrowedConnections.query(pool, CANDIDATES)
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> {
                    List<Long> ids = new ArrayList<>(rows.size());
                    for (Row r : rows) {
                        ids.add(r.getLong(0));
                    }
                    return ids;
                });
    }

    /**
     * Purges one bounded step of a partition under its row lock (its own transaction).
     *
     * @param partitionId the partition
     * @param limit       most messages and most hashes to delete
     * @return the step, or null when the partition no longer exists
     */
    public Uni<Step> purge(long partitionId, int limit) {
        return BorrowedConnections.execute(pool, PURGE, Tuple.of(partitionId, limit))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> {
                    if (rows.size() == 0) {
                        return null;
                    }
                    Row r = rows.iterator().next();
                    return new Step(r.getInteger(0), r.getInteger(1), r.getLong(2), r.getLong(3), r.getBoolean(4));
                });
    }
}
