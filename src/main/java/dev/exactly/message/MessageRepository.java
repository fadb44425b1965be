package dev.exactly.message;

import dev.exactly.db.BorrowedConnections;
import dev.exactly.db.ConnectionRetry;
import dev.exactly.db.DatabaseErrors;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.UUID;

/** Data access for reading stored messages (exactly.messages). */
@ApplicationScoped
public class MessageRepository {

    private static final String BY_ID = "SELECT m.message_id, q.name AS queue, p.name AS partition, m.\"offset\", "
            + "m.transaction_id, m.payload, m.content_type, m.headers::text AS headers, m.trace_id, m.created_at "
            + "FROM exactly.messages m JOIN exactly.partitions p ON p.id = m.partition_id "
            + "JOIN exactly.queues q ON q.id = p.queue_id WHERE m.message_id = $1";

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

    static StoredMessage toMessage(Row r) {
        return new StoredMessage(r.getUUID("message_id"), r.getString("queue"), r.getString("partition"),
                r.getLong("offset"), r.getString("transaction_id"), r.getBuffer("payload").getBytes(),
                r.getString("content_type"), r.getString("headers"), r.getString("trace_id"),
                r.getOffsetDateTime("created_at"));
    }
}
