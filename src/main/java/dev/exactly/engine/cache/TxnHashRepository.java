package dev.exactly.engine.cache;

import dev.exactly.db.BorrowedConnections;
import dev.exactly.db.RequestDeadline;
import dev.exactly.db.DatabaseErrors;
import dev.exactly.engine.PartitionKey;
import dev.exactly.engine.TransactionHash;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Cursor;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;
import java.util.function.Predicate;

/**
 * Data access for the dedup cache's hydration reads (the only SQL the cache runs). Each read is
 * one read-only transaction on one connection: the first statement resolves the partition, its
 * queue's window and its allocator watermark L; the second streams rows at or below L through a
 * cursor ({@value #FETCH} rows per round trip), so memory stays bounded by what the cache keeps.
 *
 * <p>Why "at or below L" makes the content complete: L was read from a committed allocator value,
 * and a segment's offsets and its hash rows commit in the same transaction, so every row at or
 * below L is visible to the later statement (purges only remove rows the probe no longer reads).
 *
 * <p>A full hydration reads {@code exactly.txn_hashes} by created_at within the window plus slack.
 * A delta read (healing an interleave gap) reads the gap's rows from {@code exactly.messages} by
 * its primary key (partition_id, offset), so its cost follows the gap, not the partition, and
 * recomputes each hash from the stored transaction_id (the same XXH3-128 the push path stored);
 * it reports itself incomplete unless every offset of the gap was found. A read that streamed rows
 * ends with {@link #FLUSH_IF_NEEDED}, so that what it hands the cache is durable.
 */
public final class TxnHashRepository implements HydrationSource {

    /** Rows per cursor round trip. */
    static final int FETCH = 4096;

    /** The queue's window and the partition's id, by name (exactly.partition_names; a local read on any Citus node). */
    private static final String NAMED =
            "SELECT q.dedup_window_seconds, n.id FROM exactly.queues q "
                    + "LEFT JOIN exactly.partition_names n ON n.queue_id = q.id AND n.name = $2 WHERE q.name = $1";
    /** The partition's row and its queue's window, by id: one shard's read on Citus. */
    private static final String PARTITION =
            "SELECT q.dedup_window_seconds, p.last_offset, p.data_start FROM exactly.partitions p "
                    + "JOIN exactly.queues q ON q.id = p.queue_id WHERE p.id = $1";
    private static final String FULL =
            "SELECT t.\"offset\", t.hash, (extract(epoch FROM now() - t.created_at) * 1000)::bigint "
                    + "FROM exactly.txn_hashes t WHERE t.partition_id = $1 AND t.\"offset\" <= $2 AND t.\"offset\" >= 0 "
                    + "AND t.created_at >= now() - make_interval(secs => $3::int) ORDER BY t.\"offset\"";
    private static final String DELTA =
            "SELECT m.\"offset\", m.transaction_id, (extract(epoch FROM now() - m.created_at) * 1000)::bigint "
                    + "FROM exactly.messages m WHERE m.partition_id = $1 AND m.\"offset\" > $2 AND m.\"offset\" <= $3 "
                    + "ORDER BY m.\"offset\"";

    /**
     * The last statement of a read that found rows: pushes commit before their WAL flush
     * (sql/R__push.sql, "Commit before the WAL flush"), so a row read here may not be durable yet;
     * when the WAL is not flushed up to where it was written, the read's transaction writes a
     * record of its own (exactly.flush_wal()) and its commit flushes. So the cache only ever learns
     * rows that a crash of the database cannot take back.
     */
    static final String FLUSH_IF_NEEDED = "SELECT exactly.flush_wal() WHERE exactly.flush_needed()";

    private final Pool pool;

    /** @param pool the connection pool of this engine instance */
    public TxnHashRepository(Pool pool) {
        this.pool = pool;
    }

    private record Partition(int window, long id, long last, long dataStart) {
    }

    /**
     * The partition's window, id, watermark and data watermark: its id by name, then its row by id
     * (window, last offset and data watermark read by one statement, as one snapshot).
     */
    private static Uni<Partition> partition(SqlConnection conn, PartitionKey key) {
        return conn.preparedQuery(NAMED).execute(Tuple.of(key.queue(), key.partition())).flatMap(rows -> {
            if (rows.size() == 0) {
                return Uni.createFrom().item(new Partition(-1, -1, -1, 0));
            }
            Row r = rows.iterator().next();
            Long id = r.getLong(1);
            if (id == null) {
                return Uni.createFrom().item(new Partition(r.getInteger(0), -1, -1, 0));
            }
            return conn.preparedQuery(PARTITION).execute(Tuple.of(id)).map(prow -> {
                if (prow.size() == 0) {
                    return new Partition(r.getInteger(0), -1, -1, 0);
                }
                Row x = prow.iterator().next();
                return new Partition(x.getInteger(0), id, x.getLong(1), x.getLong(2));
            });
        });
    }

    @Override
    public Uni<Snapshot> fullWindow(PartitionKey key, int slackSeconds, RowSink sink) {
        return BorrowedConnections.withTransaction(pool, RequestDeadline.NONE, conn -> partition(conn, key).flatMap(p -> {
            if (p.id < 0 || p.last < 0) {
                return Uni.createFrom().item(new Snapshot(p.window, p.id, p.last, true));
            }
            Tuple args = Tuple.of(p.id, p.last, p.window + slackSeconds);
            return stream(conn, FULL, args, row -> {
                io.vertx.mutiny.core.buffer.Buffer h = row.getBuffer(1);
                return sink.accept(row.getLong(0), h.getLong(0), h.getLong(8), row.getLong(2));
            }).call(() -> conn.query(FLUSH_IF_NEEDED).execute()).map(all -> new Snapshot(p.window, p.id, p.last, all));
        })).onFailure().transform(DatabaseErrors.CLASSIFY);
    }

    @Override
    public Uni<Snapshot> delta(PartitionKey key, long after, int expectedWindow, long maxRows, RowSink sink) {
        return BorrowedConnections.withTransaction(pool, RequestDeadline.NONE, conn -> partition(conn, key).flatMap(p -> {
            if (p.id < 0 || p.window != expectedWindow || p.last < after || p.last - after > maxRows
                    || p.dataStart > after + 1) {
                return Uni.createFrom().item(new Snapshot(p.window, p.id, p.last, false));
            }
            if (p.last == after) {
                return Uni.createFrom().item(new Snapshot(p.window, p.id, p.last, true));
            }
            long[] expected = {after + 1};
            return stream(conn, DELTA, Tuple.of(p.id, after, p.last), row -> {
                long off = row.getLong(0);
                if (off != expected[0]) {
                    return false; // a hole: this read cannot prove completeness
                }
                expected[0]++;
                byte[] h = TransactionHash.of(row.getString(1));
                return sink.accept(off, ResidentHashes.high(h), ResidentHashes.low(h), row.getLong(2));
            }).call(() -> conn.query(FLUSH_IF_NEEDED).execute())
                    .map(all -> new Snapshot(p.window, p.id, p.last, all && expected[0] == p.last + 1));
        })).onFailure().transform(DatabaseErrors.CLASSIFY);
    }

    /** Streams a query through a cursor; true when every row was accepted. */
    private static Uni<Boolean> stream(SqlConnection conn, String sql, Tuple args, Predicate<Row> each) {
        return conn.prepare(sql).flatMap(ps -> {
            Cursor cursor = ps.cursor(args);
            return drain(cursor, each)
                    .call(() -> cursor.isClosed() ? Uni.createFrom().voidItem() : cursor.close())
                    .eventually(ps::close);
        });
    }

    private static Uni<Boolean> drain(Cursor cursor, Predicate<Row> each) {
        return cursor.read(FETCH).flatMap((RowSet<Row> rows) -> {
            for (Row r : rows) {
                if (!each.test(r)) {
                    return Uni.createFrom().item(false);
                }
            }
            return cursor.hasMore() ? drain(cursor, each) : Uni.createFrom().item(true);
        });
    }
}
