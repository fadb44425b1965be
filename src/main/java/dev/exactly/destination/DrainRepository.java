package dev.exactly.destination;

import dev.exactly.db.BorrowedConnections;
import dev.exactly.db.DatabaseErrors;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * Data access for delivery in invocations (the Lambda shape; tables of sql/V25__delivery_drains.sql):
 * which queues' drains were asked for lately, and the partitions a drain left before its deadline
 * under a lease it kept.
 */
@ApplicationScoped
public class DrainRepository {

    // the functions of sql/R__delivery_drains.sql
    private static final String ASK = "SELECT exactly.ask_drains(p_queues => $1, p_configured => $2, p_debounce_ms => $3)";
    private static final String WITH_DESTINATIONS = "SELECT DISTINCT queue FROM exactly.destinations WHERE queue = ANY($1::text[])";
    private static final String CLEAR = "UPDATE exactly.delivery_drains SET invoked_at = '-infinity' "
            + "WHERE queue = ANY($1::text[]) AND invoked_at > '-infinity'";
    private static final String TOUCH = "SELECT exactly.touch_drains(p_queues => $1)";
    private static final String PARK = "SELECT exactly.park_partition(p_destination => $1, p_partition_id => $2, "
            + "p_lease_id => $3, p_next_offset => $4, p_attempt => $5, p_due_ms => $6)";
    private static final String CLAIM = "SELECT partition_id, lease_id, next_offset, attempt "
            + "FROM exactly.claim_parked(p_destination => $1, p_seconds => $2)";
    // milliseconds until the first parked partition of the destinations ($1) that no drain holds is due (0: due
    // now); null when there is none. A held one is left out: its holder is resuming it.
    // (GREATEST skips nulls: the CASE keeps "none" null)
    private static final String DUE_IN = "SELECT CASE WHEN f.at IS NOT NULL THEN GREATEST(0, ceil(extract(epoch FROM "
            + "f.at - clock_timestamp()) * 1000))::bigint END AS due_in FROM (SELECT min(due_at) AS at "
            + "FROM exactly.destination_parked WHERE destination = ANY($1::text[]) "
            + "AND (claimed_until IS NULL OR claimed_until < clock_timestamp())) f";
    private static final String UNPARK = "DELETE FROM exactly.destination_parked WHERE destination = $1 AND partition_id = $2 "
            // the row the caller claimed, not one parked again meanwhile under another lease
            + "AND lease_id = $3";
    private static final String DUE_NOW = "UPDATE exactly.destination_parked SET due_at = now() "
            + "WHERE destination = $1 AND due_at > now()";
    private static final String MESSAGES = "SELECT m.message_id, m.transaction_id, m.\"offset\", m.payload, m.content_type "
            + "FROM exactly.messages m WHERE m.partition_id = $1 AND m.\"offset\" BETWEEN $2 AND $3 "
            // an unordered destination's batch may have settled messages after the one it parked at
            + "AND NOT EXISTS (SELECT 1 FROM exactly.deliveries d WHERE d.partition_id = $1 AND d.consumer_group = $4 "
            + "AND d.\"offset\" = m.\"offset\" AND d.settled) ORDER BY m.\"offset\"";

    private final Pool pool;

    /** Constructor injection. */
    public DrainRepository(Pool pool) {
        this.pool = pool;
    }

    /**
     * Marks the drains to ask for after messages were stored.
     *
     * @param queues     the queues messages were stored in
     * @param configured the queues the configuration gives a destination
     * @param debounceMs how long a drain asked for covers later stores, in milliseconds
     * @return the queues among {@code queues} that have a destination and whose drain was not asked
     *         for within {@code debounceMs}: a drain should be asked for each
     */
    public Uni<List<String>> ask(Collection<String> queues, Collection<String> configured, int debounceMs) {
        return BorrowedConnections.execute(pool, ASK, Tuple.of(queues.toArray(String[]::new),
                        configured.toArray(String[]::new), debounceMs))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> {
                    List<String> out = new ArrayList<>();
                    rows.forEach(r -> out.add(r.getString(0)));
                    return out;
                });
    }

    /**
     * The queues that have a destination defined through the API (the configuration's are not in
     * the database).
     *
     * @param queues the queues to look up
     * @return those among {@code queues} with at least one row in exactly.destinations
     */
    public Uni<Set<String>> withDestinations(Collection<String> queues) {
        return BorrowedConnections.execute(pool, WITH_DESTINATIONS, Tuple.of(queues.toArray(String[]::new)))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> {
                    Set<String> out = new HashSet<>();
                    rows.forEach(r -> out.add(r.getString(0)));
                    return out;
                });
    }

    /** A drain of these queues found nothing more to deliver: the next store asks for another at once. */
    public Uni<Void> clear(Collection<String> queues) {
        return BorrowedConnections.execute(pool, CLEAR, Tuple.of(queues.toArray(String[]::new)))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .replaceWithVoid();
    }

    /** A drain of these queues runs: stores in them ask for no other one for the debounce period from now. */
    public Uni<Void> touch(Collection<String> queues) {
        return BorrowedConnections.execute(pool, TOUCH, Tuple.of(queues.toArray(String[]::new)))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .replaceWithVoid();
    }

    /**
     * Records a partition a drain leaves under its lease.
     *
     * @param destination the destination
     * @param partitionId the partition's id
     * @param leaseId     the pop lease kept
     * @param nextOffset  the first offset of the batch not settled
     * @param attempt     the number of that message's next attempt
     * @param dueInMs     when that attempt is due, milliseconds from now
     */
    public Uni<Void> park(String destination, long partitionId, UUID leaseId, long nextOffset, int attempt, long dueInMs) {
        return BorrowedConnections.execute(pool, PARK,
                        Tuple.from(new Object[] {destination, partitionId, leaseId, nextOffset, attempt, dueInMs}))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .replaceWithVoid();
    }

    /** A parked partition whose next attempt is due. */
    public record Parked(long partitionId, UUID leaseId, long nextOffset, int attempt) {
    }

    /** Holds the destination's parked partition that is due first for {@code seconds}; null when none is due. */
    public Uni<Parked> claim(String destination, int seconds) {
        return BorrowedConnections.execute(pool, CLAIM, Tuple.of(destination, seconds))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> {
                    if (rows.size() == 0) {
                        return null;
                    }
                    Row r = rows.iterator().next();
                    return new Parked(r.getLong("partition_id"), r.getUUID("lease_id"), r.getLong("next_offset"),
                            r.getInteger("attempt"));
                });
    }

    /**
     * When the first partition that a drain left parked for one of {@code destinations} is due.
     *
     * @param destinations the destinations' names
     * @return milliseconds from now (0 when one is due now), or null when none of them has a parked
     *         partition that no drain holds (a held one is being resumed; once its holder's claim runs
     *         out unfinished, it counts again)
     */
    public Uni<Long> dueInMs(Collection<String> destinations) {
        return BorrowedConnections.execute(pool, DUE_IN, Tuple.of(destinations.toArray(String[]::new)))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> rows.iterator().next().getLong("due_in"));
    }

    /**
     * Forgets a parked partition (it is being resumed, or its lease is gone), if it is still parked
     * under {@code leaseId}: a partition parked again meanwhile under another lease (the first one ran
     * out and the group delivered it again) stays parked for its own drain.
     */
    public Uni<Void> unpark(String destination, long partitionId, UUID leaseId) {
        return BorrowedConnections.execute(pool, UNPARK, Tuple.of(destination, partitionId, leaseId))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .replaceWithVoid();
    }

    /**
     * Makes every partition parked for {@code destination} due now (a resume ends a retry's wait):
     * the next drain resumes each under its lease, with its next attempt's number.
     */
    public Uni<Void> dueNow(String destination) {
        return BorrowedConnections.execute(pool, DUE_NOW, Tuple.of(destination))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .replaceWithVoid();
    }

    /** A stored message of a parked batch. */
    public record Message(UUID messageId, String transactionId, long offset, byte[] payload, String contentType) {
    }

    /** @return the stored messages of the partition from {@code from} to {@code to} that {@code group} has not settled, in offset order */
    public Uni<List<Message>> messages(long partitionId, String group, long from, long to) {
        return BorrowedConnections.execute(pool, MESSAGES, Tuple.of(partitionId, from, to, group))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> {
                    List<Message> out = new ArrayList<>();
                    rows.forEach(r -> out.add(new Message(r.getUUID("message_id"), r.getString("transaction_id"),
                            r.getLong("offset"), r.getBuffer("payload").getBytes(), r.getString("content_type"))));
                    return out;
                });
    }
}
