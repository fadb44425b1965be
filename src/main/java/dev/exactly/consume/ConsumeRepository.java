package dev.exactly.consume;

import dev.exactly.db.BorrowedConnections;
import dev.exactly.db.DatabaseErrors;
import dev.exactly.engine.MessageIds;
import dev.exactly.engine.PartitionKey;
import dev.exactly.engine.TransactionHash;
import dev.exactly.message.PayloadWire;
import io.smallrye.mutiny.Uni;
import io.vertx.core.buffer.Buffer;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Data access for consumption: {@code exactly.pop}, {@code exactly.ack_batch} and
 * {@code exactly.extend_lease} (sql/R__consume.sql). Each call is one statement, one round trip.
 *
 * <p>Partition ids learnt from pops (a pop's rows name their partition's id) route later calls
 * on that partition to its single-partition functions: a pop of a named partition goes to
 * {@code exactly.pop_partition}, an ack batch whose items all name that one partition to
 * {@code exactly.ack_partition}. Their first argument is the partition id, so a distributed
 * database (Citus, docs/citus.md) runs the call whole on the node holding the
 * partition. The answers are those of pop and ack_batch. Partitions are never renamed or
 * deleted, so an id once learnt stays valid.
 */
@ApplicationScoped
public class ConsumeRepository {

    private static final String POPPED = "SELECT partition_id, partition_name, \"offset\", message_id, transaction_id, "
            + "payload, content_type, headers, trace_id, created_at, attempts, lease_id, lease_expires_at, ";

    private static final String POP_MANY_COLUMNS = POPPED + "more_due, more_here";

    private static final String POP_MANY_CALL = " FROM exactly.pop_many(p_queue => $1, p_partition => $2, p_group => $3, "
            + "p_batch => $4, p_lease_seconds => $5, p_max_bytes => $6, p_dlq_ids => $7, p_dlq_hashes => $8, "
            + "p_no_retry_limit => $9, p_max_partitions => $10)";

    private static final String POP_PARTITION_COLUMNS = POPPED + "false AS more_due, true AS more_here";

    private static final String POP_PARTITION_CALL = " FROM exactly.pop_partition(p_pid => $1, p_queue => $2, "
            + "p_partition => $3, p_group => $4, p_batch => $5, p_lease_seconds => $6, p_max_bytes => $7, "
            + "p_dlq_ids => $8, p_dlq_hashes => $9, p_no_retry_limit => $10)";

    private static final String POP = POP_MANY_COLUMNS + POP_MANY_CALL;

    private static final String POP_PARTITION = POP_PARTITION_COLUMNS + POP_PARTITION_CALL;

    /**
     * Appended to a statement whose FROM list is one set-returning function call: the transaction
     * commits without waiting for its WAL flush ({@code synchronous_commit} off for that
     * transaction only; a later synchronous commit, or the WAL writer within a fraction of a second,
     * makes it durable). Only for the bookkeeping of Exactly's own destinations, whose loss in a
     * database crash delivers a message again with the same id (docs/destinations.md, "A database
     * crash"); never for what a client's request writes. It takes effect when the
     * call returns a row: a call that returns none has written nothing worth a flush.
     */
    public static final String ASYNC_COMMIT = ", set_config('synchronous_commit', 'off', true) AS async_commit";

    /**
     * A column added to a destination's pop, after the pop function's columns (so it is evaluated
     * for each answered row, after the function returned): its transaction commits without waiting for its WAL flush
     * ({@link #ASYNC_COMMIT}'s setting) unless {@code exactly.pop_many} leased a message that a push
     * committed before its own flush wrote ({@code exactly.read_early}, sql/R__consume.sql): then it
     * commits as the session says, and its flush makes what it read durable before it is delivered.
     * A pop lost in a database crash only delivers its messages again, with the same ids.
     */
    public static final String RELEASE_UNLESS_EARLY = ", CASE WHEN current_setting('exactly.read_early', true) = 'true' THEN NULL "
            + "ELSE set_config('synchronous_commit', 'off', true) END AS async_commit";

    private static final String POP_RELEASE = POP_MANY_COLUMNS + RELEASE_UNLESS_EARLY + POP_MANY_CALL;

    private static final String POP_PARTITION_RELEASE = POP_PARTITION_COLUMNS + RELEASE_UNLESS_EARLY + POP_PARTITION_CALL;

    private static final String ACKED = "SELECT item, result, queue, partition, \"offset\", message_id, transaction_id, "
            + "outcome, attempts, dead_letter_id, replay, detail ";

    private static final String ACK = ack(false, 1);

    private static final String ACK_PARTITION = ack(true, 1);

    /**
     * The call of ack_partition (by partition id) or ack_batch with the columns {@link #ack(List)}
     * reads, its parameters numbered from ${@code first}: for a statement of another concern that
     * acks ({@link #ackWith}).
     *
     * @param partition true: ack_partition (its first parameter the partition id); false: ack_batch
     * @param first     the number of its first parameter
     * @return {@code SELECT … FROM exactly.ack_…(…)}
     */
    public static String ack(boolean partition, int first) {
        String[] names = partition
                ? new String[] {"p_pid", "p_queues", "p_partitions", "p_groups", "p_leases", "p_message_ids", "p_hashes",
                        "p_statuses", "p_errors", "p_dlq_ids", "p_dlq_hashes"}
                : new String[] {"p_lock_queues", "p_lock_partitions", "p_queues", "p_partitions", "p_groups", "p_leases",
                        "p_message_ids", "p_hashes", "p_statuses", "p_errors", "p_dlq_ids", "p_dlq_hashes"};
        StringBuilder sql = new StringBuilder(ACKED).append("FROM exactly.").append(partition ? "ack_partition(" : "ack_batch(");
        for (int i = 0; i < names.length; i++) {
            sql.append(i == 0 ? "" : ", ").append(names[i]).append(" => $").append(first + i);
        }
        return sql.append(')').toString();
    }

    /** Partition ids kept at most; past it the map starts over (ids are re-learnt from pops). */
    static final int MAX_KNOWN_PARTITIONS = 100_000;

    private static final String SPREAD = "SELECT spread_partitions FROM exactly.queues WHERE name = $1";
    private static final String EXTEND = "SELECT extended, queue, partition, consumer_group, lease_from, lease_to, "
            + "lease_expires_at FROM exactly.extend_lease($1, $2)";
    private static final String EXTEND_ASYNC = EXTEND + ASYNC_COMMIT;

    private static final Buffer NO_HASH = Buffer.buffer(new byte[TransactionHash.BYTES]);

    /** Most dead-letter copies one pop may write (messages whose deliveries are used up). */
    static final int MAX_POP_DEAD_LETTERS = 100;

    private final Pool pool;
    private final long maxAnswerBytes;
    private final ConcurrentHashMap<PartitionKey, Long> partitionIds = new ConcurrentHashMap<>();
    private final LongAdder routed = new LongAdder();

    /** Constructor injection. */
    public ConsumeRepository(Pool pool, ConsumeConfig config) {
        this.pool = pool;
        this.maxAnswerBytes = config.maxAnswerBytes();
    }

    /**
     * One pop attempt (no waiting): leases a partition and returns its next messages, within the
     * byte budget {@code exactly.consume.max-answer-bytes} (the first message always). It may
     * first dead-letter messages whose deliveries are used up (their last lease expired unacked):
     * it hands the database the ids and hashes such copies would get.
     *
     * @param r the pop
     * @return the messages in offset order, all under one new lease; empty when nothing is available
     */
    public Uni<List<PoppedMessage>> pop(PopRequest r) {
        return popRows(r, false, 1, false).map(rows -> {
            List<PoppedMessage> out = new ArrayList<>(rows.size());
            for (Row row : rows) {
                out.add(toMessage(r.queue(), row));
            }
            return out;
        });
    }

    /**
     * A pop as {@link #pop} makes it, of up to {@code partitions} partitions at once (each under its
     * own lease, with its own batch and byte budget: {@code exactly.pop_many}), answered with each
     * message's stored bytes as they are (for a destination, which sends the payload unchanged). Its
     * transaction commits without waiting for its WAL flush (a lease lost in a database crash only
     * delivers its messages again), unless it leased a message that a push committed before its own
     * flush (sql/R__push.sql, "Commit before the WAL flush"): such a message may not be durable yet,
     * and this commit's flush makes it so before it is delivered ({@link #RELEASE_UNLESS_EARLY}).
     *
     * @param r              the pop; a named partition is popped alone
     * @param noRetryLimit   true: the queue's retryLimit does not apply to the group (a destination's,
     *                       which counts its attempts and dead-letters on its own): nothing is moved
     *                       to the queue's dead-letter queue
     * @param partitions     the most partitions to lease (at least one)
     * @return one batch per partition leased, in the order leased (empty when nothing was
     *         available); each batch's moreDue is the pop's: whether another partition was due
     *         besides all those leased ({@link StoredBatch})
     */
    public Uni<List<StoredBatch>> popStored(PopRequest r, boolean noRetryLimit, int partitions) {
        return popRows(r, noRetryLimit, partitions, true).map(rows -> {
            List<List<LeasedMessage>> leased = new ArrayList<>();
            List<Boolean> here = new ArrayList<>();
            List<LeasedMessage> out = null;
            boolean moreDue = false;
            for (Row row : rows) {
                long pid = row.getLong("partition_id");
                if (out == null || out.get(0).partitionId() != pid) {
                    out = new ArrayList<>();
                    leased.add(out);
                    here.add(false);
                }
                moreDue = Boolean.TRUE.equals(row.getBoolean("more_due"));
                here.set(here.size() - 1, !Boolean.FALSE.equals(row.getBoolean("more_here")));
                out.add(new LeasedMessage(row.getUUID("message_id"), row.getString("transaction_id"), r.queue(),
                        row.getString("partition_name"), pid, row.getLong("offset"),
                        row.getBuffer("payload").getBytes(), row.getString("content_type"), row.getInteger("attempts"),
                        row.getUUID("lease_id"), row.getOffsetDateTime("lease_expires_at")));
            }
            List<StoredBatch> batches = new ArrayList<>(leased.size());
            for (int i = 0; i < leased.size(); i++) {
                batches.add(new StoredBatch(leased.get(i), moreDue, here.get(i)));
            }
            return batches;
        });
    }

    /**
     * A partition's batch of a {@link #popStored} answer.
     *
     * @param messages the messages leased, in offset order, all under one lease
     * @param moreDue  the pop saw another partition due besides those it leased (a hint: another
     *                 consumer may have taken it since)
     * @param moreHere the batch's partition had messages past the last one leased (true when the
     *                 pop cannot tell)
     */
    public record StoredBatch(List<LeasedMessage> messages, boolean moreDue, boolean moreHere) {
    }

    private Uni<RowSet<Row>> popRows(PopRequest r, boolean noRetryLimit, int partitions, boolean release) {
        // a group without the queue's retryLimit dead-letters nothing in a pop: no copies to make room for
        int copies = noRetryLimit ? 0 : Math.min(r.batch(), MAX_POP_DEAD_LETTERS);
        UUID[] dlqIds = new UUID[copies];
        Buffer[] dlqHashes = new Buffer[copies];
        for (int i = 0; i < copies; i++) {
            dlqIds[i] = MessageIds.next();
            dlqHashes[i] = Buffer.buffer(TransactionHash.of(dlqIds[i].toString()));
        }
        Long pid = r.partition() == null ? null : partitionIds.get(new PartitionKey(r.queue(), r.partition()));
        Tuple args = Tuple.tuple();
        if (pid != null) {
            args.addLong(pid);
            routed.increment();
        }
        args.addString(r.queue()).addString(r.partition()).addString(r.consumerGroup())
                .addInteger(r.batch()).addInteger(r.leaseSeconds()).addLong(maxAnswerBytes)
                .addArrayOfUUID(dlqIds).addValue(dlqHashes).addBoolean(noRetryLimit);
        if (pid == null) {
            args.addInteger(Math.max(1, partitions));
        }
        String sql = pid != null ? (release ? POP_PARTITION_RELEASE : POP_PARTITION) : (release ? POP_RELEASE : POP);
        return BorrowedConnections.execute(pool, sql, args)
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> {
                    for (Row row : rows) {
                        learn(new PartitionKey(r.queue(), row.getString("partition_name")), row.getLong("partition_id"));
                    }
                    return rows;
                });
    }

    private void learn(PartitionKey key, long pid) {
        if (partitionIds.size() >= MAX_KNOWN_PARTITIONS) {
            partitionIds.clear();
        }
        partitionIds.put(key, pid);
    }

    /**
     * The partition id an ack batch may be routed by: that of the one partition every ack names
     * (queue and partition given, the same for all), when a pop taught it; else null.
     */
    private Long routeOf(List<AckCommand> acks, List<PartitionKey> lockFirst) {
        if (!lockFirst.isEmpty() || acks.isEmpty()) {
            return null;
        }
        AckCommand first = acks.get(0);
        if (first.queue() == null || first.partition() == null) {
            return null;
        }
        for (AckCommand a : acks) {
            if (!first.queue().equals(a.queue()) || !first.partition().equals(a.partition())) {
                return null;
            }
        }
        return partitionIds.get(new PartitionKey(first.queue(), first.partition()));
    }

    /** @return how many pops and ack batches went to a single-partition function (pop_partition, ack_partition) */
    public long routedCalls() {
        return routed.sum();
    }

    /**
     * Reads a queue's spreadPartitions (retried once on a closed connection).
     *
     * @param queue a queue name
     * @return its spreadPartitions; 0 when it does not spread or does not exist
     */
    public Uni<Integer> spreadPartitions(String queue) {
        return dev.exactly.db.ConnectionRetry.onceOnClosedConnection(
                        () -> BorrowedConnections.execute(pool, SPREAD, Tuple.of(queue)))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> rows.size() == 0 ? 0 : rows.iterator().next().getInteger(0));
    }

    /**
     * What an extension found: the lease as it now is, whether it was extended.
     *
     * @param extended true when the lease was held and unexpired, and now ends at its new expiry;
     *                 false when it had expired (nothing changed; {@code lease} shows the old expiry)
     * @param lease    the lease
     */
    public record Extension(boolean extended, PopLease lease) {
    }

    /**
     * Extends a pop lease: when a consumer group still holds it unexpired, it now ends
     * {@code seconds} from now (the database clock). One statement, in its own transaction.
     *
     * @param leaseId the lease a pop handed out
     * @param seconds seconds from now, or null for the queue's leaseTime
     * @return what was found; null when no consumer group holds the lease (taken over after it
     *         expired, released once everything it delivered was acked, or never granted)
     * @throws dev.exactly.db.StoreUnavailableException (as the Uni's failure) when the database is away
     */
    public Uni<Extension> extend(UUID leaseId, Integer seconds) {
        return extend(leaseId, seconds, false);
    }

    /**
     * Extends a pop lease as {@link #extend(UUID, Integer)} does; with {@code asyncCommit}, its
     * transaction commits asynchronously ({@link #ASYNC_COMMIT}: a destination's own lease, whose
     * extension or release lost in a database crash only ends it earlier or later).
     *
     * @param leaseId     the lease a pop handed out
     * @param seconds     seconds from now (0 ends it now), or null for the queue's leaseTime
     * @param asyncCommit true: commit without waiting for the WAL flush
     * @return what was found; null when no consumer group holds the lease
     * @throws dev.exactly.db.StoreUnavailableException (as the Uni's failure) when the database is away
     */
    public Uni<Extension> extend(UUID leaseId, Integer seconds, boolean asyncCommit) {
        return BorrowedConnections.execute(pool, asyncCommit ? EXTEND_ASYNC : EXTEND, Tuple.of(leaseId, seconds))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> {
                    if (rows.size() == 0) {
                        return null;
                    }
                    Row r = rows.iterator().next();
                    return new Extension(r.getBoolean("extended"), new PopLease(leaseId, r.getString("queue"),
                            r.getString("partition"), r.getString("consumer_group"), r.getLong("lease_from"),
                            r.getLong("lease_to"), r.getOffsetDateTime("lease_expires_at")));
                });
    }

    /**
     * Acks a batch on the pool, in its own transaction. Items are independent.
     *
     * @param acks validated acks
     * @return one result per ack, in order
     */
    public Uni<List<AckResult>> ack(List<AckCommand> acks) {
        return ack(pool, acks, List.of());
    }

    /**
     * Acks a batch on a given client (a connection inside the caller's transaction when
     * {@code lockFirst} is not empty). Before any consumer cursor it locks, in ascending id,
     * the partitions named in {@code lockFirst} (creating missing ones) together with the
     * dead-letter partitions it may write: the global lock order. The locks are held until the
     * caller's transaction ends.
     *
     * @param client    where to run ack_batch
     * @param acks      validated acks
     * @param lockFirst further partitions to lock first (a transaction's push partitions), may be empty
     * @return one result per ack, in order; nothing is rolled back here for an error result
     */
    public Uni<List<AckResult>> ack(SqlClient client, List<AckCommand> acks, List<PartitionKey> lockFirst) {
        return ack(client, acks, lockFirst, null, null);
    }

    /**
     * Acks a batch on the pool, as {@link #ack(List)} does, in a statement of the caller's that
     * also writes something else (e.g. a destination's figures, written with its acks: one round
     * trip instead of two): {@code WITH … } followed by {@link #ack(boolean, int)} numbered from
     * {@code withArgs.size() + 1}, one statement for each way an ack is routed.
     *
     * @param acks          validated acks
     * @param withPartition the statement ending with {@code ack(true, withArgs.size() + 1)}
     * @param withBatch     the statement ending with {@code ack(false, withArgs.size() + 1)}
     * @param withArgs      the parameters of its own part, $1 to ${@code withArgs.size()}
     * @return one result per ack, in order
     */
    public Uni<List<AckResult>> ackWith(List<AckCommand> acks, String withPartition, String withBatch, Tuple withArgs) {
        return ack(pool, acks, List.of(), new String[] {withPartition, withBatch}, withArgs);
    }

    private Uni<List<AckResult>> ack(SqlClient client, List<AckCommand> acks, List<PartitionKey> lockFirst, String[] with,
                                     Tuple withArgs) {
        int n = acks.size();
        String[] lockQueues = new String[lockFirst.size()];
        String[] lockPartitions = new String[lockFirst.size()];
        for (int i = 0; i < lockFirst.size(); i++) {
            lockQueues[i] = lockFirst.get(i).queue();
            lockPartitions[i] = lockFirst.get(i).partition();
        }
        String[] queues = new String[n];
        String[] partitions = new String[n];
        String[] groups = new String[n];
        UUID[] leases = new UUID[n];
        UUID[] messageIds = new UUID[n];
        Buffer[] hashes = new Buffer[n];
        String[] statuses = new String[n];
        String[] errors = new String[n];
        UUID[] dlqIds = new UUID[n];
        Buffer[] dlqHashes = new Buffer[n];
        for (int i = 0; i < n; i++) {
            AckCommand a = acks.get(i);
            queues[i] = a.queue();
            partitions[i] = a.partition();
            groups[i] = a.consumerGroup();
            leases[i] = a.leaseId();
            messageIds[i] = a.messageId();
            hashes[i] = a.transactionId() == null ? NO_HASH : Buffer.buffer(TransactionHash.of(a.transactionId()));
            statuses[i] = a.status().wire();
            errors[i] = a.error();
            // what a dead-letter copy would get: a fresh UUIDv7, which is also its transactionId; a
            // completed ack never dead-letters, so it gets none
            if (a.status() != AckStatus.COMPLETED) {
                UUID dlq = MessageIds.next();
                dlqIds[i] = dlq;
                dlqHashes[i] = Buffer.buffer(TransactionHash.of(dlq.toString()));
            }
        }
        Long pid = routeOf(acks, lockFirst);
        Tuple args = Tuple.tuple();
        if (withArgs != null) {
            for (int i = 0; i < withArgs.size(); i++) {
                args.addValue(withArgs.getValue(i));
            }
        }
        if (pid != null) {
            args.addLong(pid);
            routed.increment();
        } else {
            args.addArrayOfString(lockQueues).addArrayOfString(lockPartitions);
        }
        args.addArrayOfString(queues).addArrayOfString(partitions).addArrayOfString(groups)
                .addArrayOfUUID(leases).addArrayOfUUID(messageIds).addValue(hashes)
                .addArrayOfString(statuses).addArrayOfString(errors)
                .addArrayOfUUID(dlqIds).addValue(dlqHashes);
        String sql = with == null ? (pid != null ? ACK_PARTITION : ACK) : (pid != null ? with[0] : with[1]);
        return (client == pool ? BorrowedConnections.execute(pool, sql, args) : client.preparedQuery(sql).execute(args))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(ConsumeRepository::toResults);
    }

    private static List<AckResult> toResults(RowSet<Row> rows) {
        List<AckResult> out = new ArrayList<>(rows.size());
        for (Row r : rows) {
            out.add(new AckResult(r.getInteger("item") - 1, r.getString("result"), r.getString("queue"),
                    r.getString("partition"), r.getLong("offset"), r.getUUID("message_id"),
                    r.getString("transaction_id"), r.getString("outcome"), r.getInteger("attempts"),
                    r.getUUID("dead_letter_id"), Boolean.TRUE.equals(r.getBoolean("replay")) ? Boolean.TRUE : null,
                    r.getString("detail")));
        }
        return out;
    }

    private static PoppedMessage toMessage(String queue, Row r) {
        String contentType = r.getString("content_type");
        PayloadWire payload = PayloadWire.of(r.getBuffer("payload").getBytes(), contentType);
        return new PoppedMessage(r.getUUID("message_id"), r.getString("transaction_id"), queue,
                r.getString("partition_name"), r.getLong("offset"), payload.json(), payload.base64(),
                contentType, r.getString("headers"), r.getString("trace_id"), r.getOffsetDateTime("created_at"),
                r.getInteger("attempts"), r.getUUID("lease_id"), r.getOffsetDateTime("lease_expires_at"));
    }
}
