package dev.exactly.destination;

import dev.exactly.db.BorrowedConnections;
import dev.exactly.db.DatabaseErrors;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * Moves a destination's consumer-group cursors back, so that its messages from an offset or a time
 * on are delivered again (a replay). Per partition replayed, with the replay's start {@code target}
 * (the offset given, or the first offset whose message was stored at or after the time given, or
 * the partition's end when none was):
 * <ul>
 *   <li>the cursor's next offset becomes the lesser of itself and {@code target}, and so does its
 *       start offset where it has one (the messages from there on are now the destination's);</li>
 *   <li>the group's delivery rows from {@code target} on are deleted, so messages settled there
 *       (delivered or dead-lettered for the group, ahead of the cursor) are delivered again;</li>
 *   <li>when the cursor moved or its lease covers {@code target} or later, the lease is dropped: an
 *       ack or extension under it no longer matches, and the next pop starts at the cursor.</li>
 * </ul>
 * A partition the group has no cursor on is read from its start at the group's next pop already.
 */
@ApplicationScoped
public class DestinationReplays {

    // the group's cursor rows of the partitions replayed, in ascending partition id (sql/R__consume.sql's
    // lock order; sql/R__destinations.sql, one row per statement): their holder alone writes their delivery
    // rows, so the replay, a statement of its own after this one, sees every ack that committed before it
    private static final String LOCK = "SELECT exactly.lock_group_cursors(p_queue => $1, p_group => $2, p_partition => $3)";
    // $1 queue, $2 group, $3 partition or NULL, $4 fromOffset or NULL, $5 fromTime or NULL
    private static final String REPLAY = "WITH parts AS ("
            + "SELECT p.id, p.name, CASE WHEN $4::bigint IS NOT NULL THEN $4::bigint "
            + "ELSE COALESCE((SELECT min(m.\"offset\") FROM exactly.messages m WHERE m.partition_id = p.id "
            + "AND m.created_at >= $5::timestamptz), p.last_offset + 1) END AS target "
            + "FROM exactly.partitions p JOIN exactly.queues q ON q.id = p.queue_id "
            + "WHERE q.name = $1 AND ($3::text IS NULL OR p.name = $3::text)), "
            + "moved AS (UPDATE exactly.consumer_cursors c SET next_offset = LEAST(c.next_offset, parts.target), "
            + "start_offset = CASE WHEN c.start_offset IS NOT NULL THEN LEAST(c.start_offset, parts.target) END, "
            + "lease_id = NULL, lease_from = NULL, lease_to = NULL, lease_expires_at = NULL, "
            + "prev_lease_id = NULL, prev_lease_from = NULL, prev_lease_to = NULL, available_at = '-infinity' "
            + "FROM parts WHERE c.partition_id = parts.id AND c.consumer_group = $2 "
            + "AND (parts.target < c.next_offset OR (c.lease_id IS NOT NULL AND parts.target <= c.lease_to)) "
            + "RETURNING c.partition_id, c.next_offset), "
            + "dropped AS (DELETE FROM exactly.deliveries d USING parts WHERE d.partition_id = parts.id "
            + "AND d.consumer_group = $2 AND d.\"offset\" >= parts.target) "
            + "SELECT parts.name, COALESCE(moved.next_offset, c.next_offset, 0) AS next_offset FROM parts "
            + "LEFT JOIN moved ON moved.partition_id = parts.id "
            + "LEFT JOIN exactly.consumer_cursors c ON c.partition_id = parts.id AND c.consumer_group = $2 "
            + "ORDER BY parts.name";

    private final Pool pool;

    /** Constructor injection. */
    public DestinationReplays(Pool pool) {
        this.pool = pool;
    }

    /**
     * Replays a destination's group from an offset or a time (exactly one of them non-null).
     *
     * @param queue      the destination's queue
     * @param group      its consumer group ({@code destination:<name>})
     * @param partition  the one partition to replay, or null for all of the queue's
     * @param fromOffset the replay's start offset in each partition, or null
     * @param fromTime   the replay's start time, or null
     * @return each partition replayed with its next offset, by name; empty when no partition matched
     */
    public Uni<List<DestinationReplayed.Partition>> replay(String queue, String group, String partition, Long fromOffset,
                                                           OffsetDateTime fromTime) {
        return BorrowedConnections.withTransaction(pool, conn -> conn.preparedQuery(LOCK)
                        .execute(Tuple.of(queue, group, partition))
                        .flatMap(locked -> conn.preparedQuery(REPLAY)
                                .execute(Tuple.from(new Object[] {queue, group, partition, fromOffset, fromTime}))))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> {
                    List<DestinationReplayed.Partition> out = new ArrayList<>();
                    for (Row r : rows) {
                        out.add(new DestinationReplayed.Partition(r.getString("name"), r.getLong("next_offset")));
                    }
                    return out;
                });
    }
}
