package dev.exactly.redrive;

import dev.exactly.db.BorrowedConnections;
import dev.exactly.config.ExactlyConfig;
import dev.exactly.db.DatabaseErrors;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Data access for redrives: {@code exactly.redrive_candidates} and {@code exactly.record_redrives}
 * (sql/R__redrive.sql). Each call is one statement, one round trip.
 */
@ApplicationScoped
public class RedriveRepository {

    private static final String CANDIDATES = "SELECT r_dead_letter_id, r_dlq_partition_id, r_dlq_partition, "
            + "r_dlq_offset, r_origin_queue, r_origin_partition, r_redriven_to, r_payload, r_content_type, "
            + "r_headers, r_trace_id FROM exactly.redrive_candidates($1, $2, $3, $4)";

    private static final String RECORD = "SELECT exactly.record_redrives($1, $2, $3, $4, $5, $6, $7)";

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
}
