package dev.exactly.redrive;

import dev.exactly.db.BorrowedConnections;
import dev.exactly.config.ExactlyConfig;
import dev.exactly.db.DatabaseErrors;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Data access for redrives: {@code exactly.redrive_candidates} and {@code exactly.record_redrives}
 * (sql/R__redrive.sql), and the listing of a dead-letter queue without a pop
 * ({@code exactly.dead_letter_page}, sql/R__stats.sql). Each call is one statement, one round trip.
 */
@ApplicationScoped
public class RedriveRepository {

    private static final String CANDIDATES = "SELECT r_dead_letter_id, r_dlq_partition_id, r_dlq_partition, "
            + "r_dlq_offset, r_origin_queue, r_origin_partition, r_redriven_to, r_payload, r_content_type, "
            + "r_headers, r_trace_id FROM exactly.redrive_candidates($1, $2, $3, $4)";

    private static final String RECORD = "SELECT exactly.record_redrives($1, $2, $3, $4, $5, $6, $7)";

    private static final String PAGE = "SELECT r_partition_id, r_partition, r_offset, r_message_id, r_created_at, "
            + "r_size, r_origin, r_redriven_to, r_redriven_at FROM exactly.dead_letter_page($1, $2, $3, $4)";

    private final Pool pool;
    private final long maxBytes;

    /** Constructor injection; a "redrive all" call reads no more payload bytes than one push may carry. */
    public RedriveRepository(Pool pool, ExactlyConfig config) {
        this.pool = pool;
        this.maxBytes = config.push().maxBodyBytes();
    }

    /**
     * @param dlq   a dead-letter queue's name
     * @param ids   the copies wanted, or null for the next {@code limit} not redriven yet
     * @param limit most copies when {@code ids} is null; then also no more payload bytes in all than
     *              {@code exactly.push.max-body-bytes} (the first copy always)
     * @return the copies found, by partition id and offset (an id not stored in {@code dlq} is absent)
     */
    public Uni<List<DeadLetterCopy>> candidates(String dlq, List<UUID> ids, int limit) {
        Tuple args = Tuple.tuple().addString(dlq)
                .addArrayOfUUID(ids == null ? null : ids.toArray(new UUID[0])).addInteger(limit).addLong(maxBytes);
        return BorrowedConnections.execute(pool, CANDIDATES, args)
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> {
                    List<DeadLetterCopy> out = new ArrayList<>(rows.size());
                    for (Row r : rows) {
                        out.add(new DeadLetterCopy(r.getUUID("r_dead_letter_id"), r.getLong("r_dlq_partition_id"),
                                r.getString("r_dlq_partition"), r.getLong("r_dlq_offset"),
                                r.getString("r_origin_queue"), r.getString("r_origin_partition"),
                                r.getUUID("r_redriven_to"), r.getBuffer("r_payload").getBytes(),
                                r.getString("r_content_type"), r.getString("r_headers"), r.getString("r_trace_id")));
                    }
                    return out;
                });
    }

    /**
     * Records redriven copies (a copy already recorded keeps its first record).
     *
     * @param dlq    the dead-letter queue's name
     * @param copies the copies redriven
     * @param stored per copy, the message id its redrive stored (or found already stored)
     * @return copies of {@code dlq} not redriven yet
     */
    public Uni<Long> record(String dlq, List<DeadLetterCopy> copies, List<UUID> stored) {
        int n = copies.size();
        UUID[] ids = new UUID[n];
        Long[] pids = new Long[n];
        Long[] offsets = new Long[n];
        UUID[] messageIds = new UUID[n];
        String[] queues = new String[n];
        String[] partitions = new String[n];
        for (int i = 0; i < n; i++) {
            DeadLetterCopy c = copies.get(i);
            ids[i] = c.deadLetterId();
            pids[i] = c.dlqPartitionId();
            offsets[i] = c.dlqOffset();
            messageIds[i] = stored.get(i);
            queues[i] = c.originQueue();
            partitions[i] = c.originPartition();
        }
        Tuple args = Tuple.tuple().addString(dlq).addArrayOfUUID(ids).addArrayOfLong(pids).addArrayOfLong(offsets)
                .addArrayOfUUID(messageIds).addArrayOfString(queues).addArrayOfString(partitions);
        return BorrowedConnections.execute(pool, RECORD, args)
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> rows.iterator().next().getLong(0));
    }

    /**
     * A dead-letter copy as listed.
     *
     * @param partitionId the dead-letter partition's id (the listing's order, with the offset)
     * @param partition   the dead-letter partition's name
     * @param offset      its offset there
     * @param messageId   the copy's message id
     * @param createdAt   when it was dead-lettered
     * @param payloadBytes its payload's size
     * @param originJson  its dead-letter header (JSON object text), or null
     * @param redrivenTo  the message its redrive stored, or null when not redriven
     * @param redrivenAt  when it was redriven, or null
     */
    public record Listed(long partitionId, String partition, long offset, UUID messageId, OffsetDateTime createdAt,
                         int payloadBytes, String originJson, UUID redrivenTo, OffsetDateTime redrivenAt) {
    }

    /**
     * @param dlq         a dead-letter queue's name
     * @param afterPid    the partition id of the previous page's last copy, or null for the first page
     * @param afterOffset its offset (ignored when {@code afterPid} is null)
     * @param limit       most copies
     * @return the copies by partition id and offset, redriven or not
     */
    public Uni<List<Listed>> page(String dlq, Long afterPid, long afterOffset, int limit) {
        Tuple args = Tuple.tuple().addString(dlq).addLong(afterPid).addLong(afterOffset).addInteger(limit);
        return BorrowedConnections.execute(pool, PAGE, args)
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> {
                    List<Listed> out = new ArrayList<>(rows.size());
                    for (Row r : rows) {
                        out.add(new Listed(r.getLong("r_partition_id"), r.getString("r_partition"),
                                r.getLong("r_offset"), r.getUUID("r_message_id"), r.getOffsetDateTime("r_created_at"),
                                r.getInteger("r_size"), r.getString("r_origin"), r.getUUID("r_redriven_to"),
                                r.getOffsetDateTime("r_redriven_at")));
                    }
                    return out;
                });
    }
}
