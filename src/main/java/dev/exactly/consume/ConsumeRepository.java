package dev.exactly.consume;

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

/**
 * Data access for consumption: {@code exactly.pop} and {@code exactly.ack_batch}
 * (sql/R__consume.sql). Each call is one statement, one round trip.
 */
@ApplicationScoped
public class ConsumeRepository {

    private static final String POP = "SELECT partition_name, \"offset\", message_id, transaction_id, payload, "
            + "content_type, headers, trace_id, created_at, attempts, lease_id, lease_expires_at "
            + "FROM exactly.pop($1, $2, $3, $4, $5, $6, $7, $8)";

    private static final String ACK = "SELECT item, result, queue, partition, \"offset\", message_id, transaction_id, "
            + "outcome, attempts, dead_letter_id, replay, detail "
            + "FROM exactly.ack_batch($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)";

    private static final Buffer NO_HASH = Buffer.buffer(new byte[TransactionHash.BYTES]);

    /** Most dead-letter copies one pop may write (messages whose deliveries are used up). */
    static final int MAX_POP_DEAD_LETTERS = 100;

    private final Pool pool;
    private final long maxAnswerBytes;

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
        int copies = Math.min(r.batch(), MAX_POP_DEAD_LETTERS);
        UUID[] dlqIds = new UUID[copies];
        Buffer[] dlqHashes = new Buffer[copies];
        for (int i = 0; i < copies; i++) {
            dlqIds[i] = MessageIds.next();
            dlqHashes[i] = Buffer.buffer(TransactionHash.of(dlqIds[i].toString()));
        }
        Tuple args = Tuple.tuple().addString(r.queue()).addString(r.partition()).addString(r.consumerGroup())
                .addInteger(r.batch()).addInteger(r.leaseSeconds()).addLong(maxAnswerBytes)
                .addArrayOfUUID(dlqIds).addValue(dlqHashes);
        return pool.preparedQuery(POP).execute(args)
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> {
                    List<PoppedMessage> out = new ArrayList<>(rows.size());
                    for (Row row : rows) {
                        out.add(toMessage(r.queue(), row));
                    }
                    return out;
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
            // what a dead-letter copy would get: a fresh UUIDv7, which is also its transactionId
            UUID dlq = MessageIds.next();
            dlqIds[i] = dlq;
            dlqHashes[i] = Buffer.buffer(TransactionHash.of(dlq.toString()));
        }
        Tuple args = Tuple.tuple()
                .addArrayOfString(lockQueues).addArrayOfString(lockPartitions)
                .addArrayOfString(queues).addArrayOfString(partitions).addArrayOfString(groups)
                .addArrayOfUUID(leases).addArrayOfUUID(messageIds).addValue(hashes)
                .addArrayOfString(statuses).addArrayOfString(errors)
                .addArrayOfUUID(dlqIds).addValue(dlqHashes);
        return client.preparedQuery(ACK).execute(args)
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
