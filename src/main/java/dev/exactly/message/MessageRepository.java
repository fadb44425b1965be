package dev.exactly.message;

import dev.exactly.db.BorrowedConnections;
import dev.exactly.db.ConnectionRetry;
import dev.exactly.db.DatabaseErrors;
import dev.exactly.destination.Destination;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import dev.exactly.engine.TransactionHash;
import io.vertx.mutiny.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** Data access for reading stored messages (exactly.messages): by id, by queue and key, and their deliveries. */
@ApplicationScoped
public class MessageRepository {

    private static final String BY_ID = "SELECT m.message_id, q.name AS queue, p.name AS partition, m.\"offset\", "
            + "m.transaction_id, m.payload, m.content_type, m.headers::text AS headers, m.trace_id, m.created_at "
            + "FROM exactly.messages m JOIN exactly.partitions p ON p.id = m.partition_id "
            + "JOIN exactly.queues q ON q.id = p.queue_id WHERE m.message_id = $1";

    private static final String BY_KEY = "SELECT m.message_id, q.name AS queue, p.name AS partition, m.\"offset\", "
            + "m.transaction_id, m.payload, m.content_type, m.headers::text AS headers, m.trace_id, m.created_at, "
            + "q.dedup_window_seconds FROM exactly.queues q JOIN exactly.partitions p ON p.queue_id = q.id "
            + "JOIN exactly.txn_hashes t ON t.partition_id = p.id AND t.hash = $2 "
            + "JOIN exactly.messages m ON m.partition_id = t.partition_id AND m.\"offset\" = t.\"offset\" "
            + "WHERE q.name = $1 AND m.transaction_id = $3 ORDER BY m.created_at, p.name, m.\"offset\"";

    // per consumer group with a cursor on the message's partition: where the message stands for it, and attempts, the
    // number of its deliveries made so far (pop's attempts, SQS's receive count). A consumer group counts them in
    // deliveries.attempts (those ended, sql/R__consume.sql): one more while a live lease holds it unacked, and one more
    // for an expired lease that still holds it unacked (ended, charged by the next pop). A destination's group
    // ("destination:" + name, sql/V21__destinations.sql) counts its own: a dead letter of it (destination_dead_letters),
    // the attempts recorded while it is retried (destination_attempts; none yet: its attempt 1 while leased, 0 else),
    // not its group's deliveries, which count leases. A settled message's count is that of its delivery row while
    // the group keeps one (acked ahead of the cursor; a consumer group's only); the rows go as the cursor passes, so
    // then attempts is null. Where a destination started: its cursor's start_offset (a message below it was never
    // for it; a replay lowers it), or, for a destination created before that column, destination_state.started_at
    private static final String LIVE = "c.lease_id IS NOT NULL AND m.\"offset\" BETWEEN c.lease_from AND c.lease_to "
            + "AND d.acked_lease IS DISTINCT FROM c.lease_id AND c.lease_expires_at > statement_timestamp()";
    private static final String EXPIRED = "c.lease_id IS NOT NULL AND m.\"offset\" BETWEEN c.lease_from AND c.lease_to "
            + "AND d.acked_lease IS DISTINCT FROM c.lease_id AND c.lease_expires_at <= statement_timestamp()";
    private static final String PASSED = "m.\"offset\" < c.next_offset OR d.settled";
    private static final String BEFORE_START = "CASE WHEN c.start_offset IS NOT NULL THEN m.\"offset\" < c.start_offset "
            + "ELSE s.started_at > m.created_at END";
    private static final String DELIVERIES = "SELECT c.consumer_group, "
            + "CASE WHEN dl.message_id IS NOT NULL THEN dl.attempts "
            + "WHEN " + PASSED + " THEN CASE WHEN " + BEFORE_START + " THEN 0 WHEN s.name IS NULL THEN d.attempts END "
            + "WHEN s.name IS NOT NULL THEN CASE WHEN a.attempts > 0 THEN a.attempts WHEN " + LIVE + " THEN 1 ELSE 0 END "
            + "WHEN " + LIVE + " OR " + EXPIRED + " THEN COALESCE(d.attempts, 0) + 1 "
            + "ELSE COALESCE(d.attempts, 0) END AS attempts, "
            + "CASE WHEN dl.message_id IS NOT NULL THEN 'dead-lettered' "
            + "WHEN " + PASSED + " THEN CASE WHEN " + BEFORE_START + " THEN 'before-start' ELSE 'settled' END "
            + "WHEN s.name IS NOT NULL THEN CASE WHEN a.attempts > 0 THEN 'retrying' WHEN " + LIVE + " THEN 'leased' "
            + "ELSE 'waiting' END "
            + "WHEN " + LIVE + " THEN 'leased' "
            + "WHEN d.partition_id IS NOT NULL OR " + EXPIRED + " THEN 'retrying' ELSE 'waiting' END AS state, "
            + "d.last_outcome, COALESCE(dl.error, d.last_error) AS last_error, d.dead_letter_id "
            + "FROM exactly.messages m JOIN exactly.consumer_cursors c ON c.partition_id = m.partition_id "
            + "LEFT JOIN exactly.deliveries d ON d.partition_id = m.partition_id "
            + "AND d.consumer_group = c.consumer_group AND d.\"offset\" = m.\"offset\" "
            + "LEFT JOIN exactly.destination_state s ON c.consumer_group = '" + Destination.GROUP_PREFIX + "' || s.name "
            + "LEFT JOIN exactly.destination_dead_letters dl ON dl.destination = s.name "
            + "AND dl.partition_id = m.partition_id AND dl.\"offset\" = m.\"offset\" "
            + "LEFT JOIN exactly.destination_attempts a ON a.destination = s.name "
            + "AND a.partition_id = m.partition_id AND a.\"offset\" = m.\"offset\" "
            + "WHERE m.message_id = $1 ORDER BY c.consumer_group";

    private final Pool pool;

    /** Constructor injection. */
    public MessageRepository(Pool pool) {
        this.pool = pool;
    }

    /**
     * @return the message, or null when no message has that id (or its data was purged); retried
     *         once on a closed connection
     */
    public Uni<StoredMessage> find(UUID messageId) {
        return ConnectionRetry.onceOnClosedConnection(() -> BorrowedConnections.execute(pool, BY_ID, Tuple.of(messageId)))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> rows.size() == 0 ? null : toMessage(rows.iterator().next()));
    }

    /**
     * A message stored under a key, with its queue's window.
     *
     * @param message       the message
     * @param windowSeconds its queue's deduplication window
     */
    public record Keyed(StoredMessage message, int windowSeconds) {
    }

    /**
     * @param queue         queue name
     * @param transactionId the key
     * @return the messages stored under the key in the queue (any partition), oldest first; empty
     *         when none (never pushed, or purged by retention)
     */
    public Uni<List<Keyed>> byKey(String queue, String transactionId) {
        Tuple args = Tuple.tuple().addString(queue).addBuffer(Buffer.buffer(TransactionHash.of(transactionId)))
                .addString(transactionId);
        return BorrowedConnections.execute(pool, BY_KEY, args)
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> {
                    List<Keyed> out = new ArrayList<>(rows.size());
                    for (Row r : rows) {
                        out.add(new Keyed(toMessage(r), r.getInteger("dedup_window_seconds")));
                    }
                    return out;
                });
    }

    /**
     * Where a message stands for one consumer group.
     *
     * @param group        the consumer group
     * @param state        {@link MessageDeliveries.Group#state()}
     * @param attempts     {@link MessageDeliveries.Group#attempts()}
     * @param lastOutcome  the last ack's outcome, or null
     * @param lastError    the last ack's error, or a destination's dead letter's error; null when none
     * @param deadLetterId the dead-letter copy it became, or null
     */
    public record Delivery(String group, String state, Integer attempts, String lastOutcome, String lastError,
                           UUID deadLetterId) {
    }

    /** @return per consumer group that reads the message's partition, where the message stands; by group */
    public Uni<List<Delivery>> deliveries(UUID messageId) {
        return BorrowedConnections.execute(pool, DELIVERIES, Tuple.of(messageId))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> {
                    List<Delivery> out = new ArrayList<>(rows.size());
                    for (Row r : rows) {
                        out.add(new Delivery(r.getString("consumer_group"), r.getString("state"),
                                r.getInteger("attempts"), r.getString("last_outcome"), r.getString("last_error"),
                                r.getUUID("dead_letter_id")));
                    }
                    return out;
                });
    }

    static StoredMessage toMessage(Row r) {
        return new StoredMessage(r.getUUID("message_id"), r.getString("queue"), r.getString("partition"),
                r.getLong("offset"), r.getString("transaction_id"), r.getBuffer("payload").getBytes(),
                r.getString("content_type"), r.getString("headers"), r.getString("trace_id"),
                r.getOffsetDateTime("created_at"));
    }
}
