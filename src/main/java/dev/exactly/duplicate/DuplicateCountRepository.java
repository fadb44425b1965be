package dev.exactly.duplicate;

import dev.exactly.db.BorrowedConnections;
import dev.exactly.db.DatabaseErrors;
import dev.exactly.engine.DuplicateTally;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/**
 * Data access for the counts of duplicates answered (the unlogged table
 * {@code exactly.duplicate_counts}, sql/V19__duplicate_counts.sql): adding an instance's counts
 * ({@code exactly.add_duplicates}), a queue's sum over its window ({@code exactly.queue_duplicates})
 * the purge of buckets no window reaches any more, which rolls them up per hour
 * ({@code exactly.purge_duplicate_counts}), and a queue's hourly series ({@code exactly.queue_duplicate_series}).
 * Each call is one statement in its own transaction; none of them runs on a push's path.
 */
@ApplicationScoped
public class DuplicateCountRepository {

    private static final String ADD = "SELECT exactly.add_duplicates($1, $2, $3)";
    private static final String SUM = "SELECT r_duplicates, r_window FROM exactly.queue_duplicates($1)";
    private static final String PURGE = "SELECT exactly.purge_duplicate_counts($1)";

    private static final String SERIES = "SELECT r_hour, r_duplicates FROM exactly.queue_duplicate_series($1, $2)";

    private final Pool pool;

    /** Constructor injection. */
    public DuplicateCountRepository(Pool pool) {
        this.pool = pool;
    }

    /**
     * A queue's duplicates over its window, as written so far.
     *
     * @param atLeast       the duplicates answered in the minutes that start within the window,
     *                      as every instance has written them (a lower bound)
     * @param windowSeconds the queue's deduplication window
     */
    public record WindowCount(long atLeast, int windowSeconds) {
    }

    /**
     * Adds counts to the stored ones (upserted in key order, unlogged: the commit does not wait for
     * a WAL flush).
     *
     * @param counts drained counts (may be empty)
     * @return buckets written
     * @throws dev.exactly.db.StoreUnavailableException (as the Uni's failure) when the database is away
     */
    public Uni<Integer> add(List<DuplicateTally.Count> counts) {
        if (counts.isEmpty()) {
            return Uni.createFrom().item(0);
        }
        String[] queues = new String[counts.size()];
        OffsetDateTime[] buckets = new OffsetDateTime[counts.size()];
        Long[] n = new Long[counts.size()];
        for (int i = 0; i < counts.size(); i++) {
            DuplicateTally.Count c = counts.get(i);
            queues[i] = c.queue();
            buckets[i] = OffsetDateTime.ofInstant(Instant.ofEpochSecond(c.bucketStart()), ZoneOffset.UTC);
            n[i] = c.duplicates();
        }
        Tuple args = Tuple.tuple().addArrayOfString(queues).addArrayOfOffsetDateTime(buckets).addArrayOfLong(n);
        return BorrowedConnections.execute(pool, ADD, args)
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> rows.iterator().next().getInteger(0));
    }

    /**
     * @param queue queue name
     * @return its duplicates over its window, or null when the queue does not exist
     * @throws dev.exactly.db.StoreUnavailableException (as the Uni's failure) when the database is away
     */
    public Uni<WindowCount> window(String queue) {
        return BorrowedConnections.execute(pool, SUM, Tuple.of(queue))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> {
                    if (rows.size() == 0) {
                        return null;
                    }
                    Row r = rows.iterator().next();
                    return new WindowCount(r.getLong("r_duplicates"), r.getInteger("r_window"));
                });
    }

    /**
     * The duplicates answered in one hour.
     *
     * @param hour       the start of the hour (UTC)
     * @param duplicates the duplicates answered in it, as written so far
     */
    public record HourCount(OffsetDateTime hour, long duplicates) {
    }

    /**
     * A queue's duplicates per hour from {@code since} on: the rolled-up hours before its window
     * and the minute buckets within it (sql/V22__duplicate_rollup.sql); hours with none are absent.
     *
     * @throws dev.exactly.db.StoreUnavailableException (as the Uni's failure) when the database is away
     */
    public Uni<List<HourCount>> series(String queue, OffsetDateTime since) {
        return BorrowedConnections.execute(pool, SERIES, Tuple.of(queue, since))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> {
                    List<HourCount> out = new ArrayList<>(rows.size());
                    for (Row r : rows) {
                        out.add(new HourCount(r.getOffsetDateTime("r_hour"), r.getLong("r_duplicates")));
                    }
                    return out;
                });
    }

    /**
     * Deletes at most {@code limit} buckets older than their queue's window, oldest first, adding
     * them to the hourly rollup; then the rollup's hours older than its kept history.
     *
     * @return how many were deleted
     * @throws dev.exactly.db.StoreUnavailableException (as the Uni's failure) when the database is away
     */
    public Uni<Integer> purge(int limit) {
        return BorrowedConnections.execute(pool, PURGE, Tuple.of(limit))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> rows.iterator().next().getInteger(0));
    }
}
