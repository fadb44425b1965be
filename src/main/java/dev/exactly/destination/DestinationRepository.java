package dev.exactly.destination;

import dev.exactly.consume.ConsumeRepository;
import dev.exactly.db.BorrowedConnections;
import dev.exactly.db.DatabaseErrors;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.net.URI;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Data access for destinations (tables of sql/V21__destinations.sql, sql/V26 and sql/V27): the
 * destinations defined through the API, every destination's figures, dead letters and the attempts
 * recorded for messages being retried, and the start of a destination's consumer group.
 */
@ApplicationScoped
public class DestinationRepository {

    /**
     * How often, in milliseconds, an instance marks each configured destination it runs as defined by
     * its configuration (exactly.destination_state.configured_at, sql/V31__destination_configured.sql):
     * the server shape's timer, and the Lambda shape's drains, start it again that often.
     */
    public static final long CONFIGURED_MARK_EVERY_MS = 20_000;
    /**
     * How long, in milliseconds by the database's clock, a configured destination's mark stays live:
     * three marking periods, so that a mark or two lost (a busy database, a slow start) leave it
     * live. While it is live every instance refuses a PUT or DELETE of the name through the API;
     * once stale (no instance configured the name for that long), the rows are a removed
     * destination's leftovers.
     */
    public static final long CONFIGURED_LIVE_MS = 60_000;
    // whether a figures row's configured mark is live (CONFIGURED_LIVE_MS); NULL (false) without a mark. now() (the
    // transaction's start) rather than clock_timestamp(): Citus evaluates a stable function once, on the coordinator,
    // in a write to a reference table; the transactions that read and write the mark are short beside the 60 s
    private static final String LIVE = live("configured_at");

    /** SQL: whether the mark {@code at} (an expression of type timestamptz) is live ({@link #CONFIGURED_LIVE_MS}). */
    private static String live(String at) {
        return at + " > now() - interval '" + CONFIGURED_LIVE_MS + " milliseconds'";
    }

    private static final String COLUMNS = "name, queue, type, url, signing_secret, timeout_ms, max_attempts, "
            + "backoff_ms, backoff_cap_ms, queue_url, event_bus, source, detail_type, region, endpoint, ordered";
    private static final String LIST = "SELECT " + COLUMNS + " FROM exactly.destinations ORDER BY name";
    private static final String GET = "SELECT " + COLUMNS + " FROM exactly.destinations WHERE name = $1";
    // sql/R__destinations.sql
    private static final String UPSERT = "SELECT created FROM exactly.put_destination(p_name => $1, p_queue => $2, "
            + "p_type => $3, p_url => $4, p_signing_secret => $5, p_timeout_ms => $6, p_max_attempts => $7, "
            + "p_backoff_ms => $8, p_backoff_cap_ms => $9, p_queue_url => $10, p_event_bus => $11, p_source => $12, "
            + "p_detail_type => $13, p_region => $14, p_endpoint => $15, p_ordered => $16)";
    // a new destination's cursors start after each partition's last offset (what is stored from now on), and
    // remember it (start_offset, sql/V28__destination_start_offsets.sql). A cursor of its group already there
    // is a deleted destination's of the same name (a pop under way at the delete wrote it back): reset too
    private static final String START = "WITH s AS (INSERT INTO exactly.destination_state (name, queue) VALUES ($1, $2) "
            + "ON CONFLICT (name) DO NOTHING RETURNING name) " + startCursors("true");
    // what holds a name on another queue than $2: a destination defined through the API there, or the
    // figures row of a destination of that name there (with its cursors and dead letters): a configured
    // one's while its mark is live, else an earlier destination's leftovers
    private static final String HELD_ELSEWHERE = "SELECT queue, true AS api, false AS configured FROM exactly.destinations "
            + "WHERE name = $1 AND queue <> $2 UNION ALL SELECT queue, false, COALESCE(" + LIVE + ", false) "
            + "FROM exactly.destination_state WHERE name = $1 AND queue <> $2 ORDER BY api DESC LIMIT 1";
    // START of a configured destination unless HELD_ELSEWHERE finds its name held on another queue, in one
    // statement, which also marks its figures row as configured now (configured_at): a new row, or the one it
    // has on $2 already (then its cursors stay as they are). Its one row says what holds the name (queue null
    // when nothing does, and the destination started or was marked). Committed asynchronously, as the rest of
    // the dispatcher's bookkeeping (ConsumeRepository#ASYNC_COMMIT), since it runs every CONFIGURED_MARK_EVERY_MS:
    // any later synchronous commit (a push's) flushes it first, so no message is stored durably before a start
    // that a database crash loses, and a mark lost so is written again by the next one. An API destination of
    // the name on $2 is deleted (api): the configuration takes the name over for good, its figures and cursors
    // becoming the configured one's, so that removing the configuration later leaves leftovers rather than
    // bringing back the API destination's settings (its URL, its signing or none)
    private static final String START_UNLESS_HELD = "WITH h AS (" + HELD_ELSEWHERE + "), "
            + "api AS (DELETE FROM exactly.destinations WHERE name = $1 AND queue = $2 AND NOT EXISTS (SELECT 1 FROM h)), "
            + "s AS (INSERT INTO exactly.destination_state AS t (name, queue, configured_at) "
            + "SELECT $1, $2, now() WHERE NOT EXISTS (SELECT 1 FROM h) "
            + "ON CONFLICT (name) DO UPDATE SET configured_at = EXCLUDED.configured_at WHERE t.queue = $2 "
            + "RETURNING name, (xmax = 0) AS inserted), "
            + "cursors AS (" + startCursors("s.inserted") + ") SELECT h.queue, h.api, h.configured"
            + ConsumeRepository.ASYNC_COMMIT + " FROM (SELECT 1) AS one LEFT JOIN h ON true";
    // after a PUT's writes, in its transaction: whether a running instance's configuration defines the name (a
    // live mark on its figures row, on any queue). Read in a snapshot of its own, taken after the writes: a mark
    // committed before it is seen, and one committed after it came after the PUT (a configured destination
    // started on a name the API had defined)
    private static final String CONFIGURED_LIVE = "SELECT queue FROM exactly.destination_state WHERE name = $1 AND " + LIVE;
    private static final String DELETE = "DELETE FROM exactly.destinations WHERE name = $1 AND queue = $2 RETURNING name";
    // what a name holds on queue $2 without an API destination: its figures row. Read after DELETE found no API
    // destination, in a snapshot of its own: an API destination of that name a PUT committed meanwhile (with its
    // figures row) is not taken for leftovers, so the DELETE answers 404 as its own statement saw, and the new
    // destination keeps its figures row and cursors
    private static final String LEFT_ON = "SELECT 1 FROM exactly.destination_state s WHERE s.name = $1 AND s.queue = $2 "
            + "AND NOT EXISTS (SELECT 1 FROM exactly.destinations d WHERE d.name = $1)";
    // answers the configured mark the deleted row carried (MARK_LIVE then says whether it is live: the delete rolls
    // back, 409). The row lock the DELETE takes orders it with a mark being written: the mark's new time is what it reads
    private static final String DELETE_STATE = "DELETE FROM exactly.destination_state WHERE name = $1 RETURNING configured_at";
    // whether the mark the deleted figures row carried ($1) is live: read apart from the DELETE, whose RETURNING
    // Citus allows no stable function in (now())
    private static final String MARK_LIVE = "SELECT " + live("$1::timestamptz") + " AS live";
    private static final String DELETE_DEAD = "DELETE FROM exactly.destination_dead_letters WHERE destination = $1";
    // the group's cursor rows in ascending partition id, the order fused acks and replays take them in
    // (sql/R__destinations.sql)
    private static final String LOCK_CURSORS = "SELECT exactly.lock_group_cursors(p_queue => $1, p_group => $2, p_partition => NULL)";
    private static final String DELETE_CURSORS = "DELETE FROM exactly.consumer_cursors WHERE consumer_group = $1";
    private static final String DELETE_DELIVERIES = "DELETE FROM exactly.deliveries WHERE consumer_group = $1";
    private static final String DROP_ORPHAN_CURSORS = "DELETE FROM exactly.consumer_cursors WHERE consumer_group = $2 "
            + "AND NOT EXISTS (SELECT 1 FROM exactly.destination_state s WHERE s.name = $1)";
    private static final String DROP_ORPHAN_DELIVERIES = "DELETE FROM exactly.deliveries WHERE consumer_group = $2 "
            + "AND NOT EXISTS (SELECT 1 FROM exactly.destination_state s WHERE s.name = $1)";
    // the dispatcher's bookkeeping commits asynchronously (asyncCommit): FIGURES, DEAD_LETTER and the acks
    private static final String FIGURES = asyncCommit("UPDATE exactly.destination_state SET delivered = delivered + $2, "
            + "failed_attempts = failed_attempts + $3 WHERE name = $1");
    private static final String FIGURES_ERROR = asyncCommit("UPDATE exactly.destination_state SET delivered = delivered + $2, "
            + "failed_attempts = failed_attempts + $3, " + lastError(4, 5) + " WHERE name = $1");
    // a batch's acks with the destination's figures (ConsumeRepository#ackWith): $1 name, $2 delivered, $3 failed
    // attempts, $4 last error or null; $5 the partition and $6 the offsets acked, whose recorded attempts (if any)
    // are deleted; with a last error, $7 when it happened; then the ack's parameters
    private static final String ACK_FIGURES_PARTITION = ackFigures(true, false);
    private static final String ACK_FIGURES_BATCH = ackFigures(false, false);
    private static final String ACK_FIGURES_ERROR_PARTITION = ackFigures(true, true);
    private static final String ACK_FIGURES_ERROR_BATCH = ackFigures(false, true);
    // a completed batch's acks (every message delivered) with the destination's figures, by partition id and
    // offsets under the lease that popped them (exactly.ack_completed, sql/R__consume.sql): $1 name, $2 delivered,
    // $3 the partition, $4 the offsets acked, whose recorded attempts (if any) are deleted, $5 the consumer group,
    // $6 the lease
    private static final String ACK_COMPLETED = "WITH figures AS (UPDATE exactly.destination_state "
            + "SET delivered = delivered + $2 WHERE name = $1), "
            + "settled AS (DELETE FROM exactly.destination_attempts WHERE destination = $1 AND partition_id = $3 "
            + "AND \"offset\" = ANY($4::bigint[])) "
            + "SELECT acked, released FROM exactly.ack_completed(p_pid => $3, p_group => $5, p_lease => $6, "
            + "p_offsets => $4)" + ConsumeRepository.ASYNC_COMMIT;
    /** The fused completed acks' statements by their number of batches (from 2), made once each. */
    private static final java.util.concurrent.ConcurrentHashMap<Integer, String> ACK_COMPLETED_N = new java.util.concurrent.ConcurrentHashMap<>();
    // the fused form of ACK_COMPLETED for two batches (ackCompletedAll); a constant so that the SQL checks of every
    // route read its shape, which more batches repeat
    private static final String ACK_COMPLETED_TWO = ackCompletedStatement(2);
    // committed synchronously, unlike the rest of the dispatcher's bookkeeping: the record written ahead of an
    // attempt is what bounds a message's attempts by maxAttempts, through a database crash too
    private static final String FAILED_ATTEMPT = "INSERT INTO exactly.destination_attempts AS a (destination, partition_id, \"offset\", "
            + "attempts) VALUES ($1, $2, $3, $4) ON CONFLICT (destination, partition_id, \"offset\") "
            + "DO UPDATE SET attempts = GREATEST(a.attempts, EXCLUDED.attempts)";
    private static final String ATTEMPTS = "SELECT \"offset\", attempts FROM exactly.destination_attempts "
            + "WHERE destination = $1 AND partition_id = $2 AND \"offset\" BETWEEN $3 AND $4";
    private static final String DELETE_ATTEMPTS = "DELETE FROM exactly.destination_attempts WHERE destination = $1";
    private static final String DEAD_LETTER = asyncCommit("INSERT INTO exactly.destination_dead_letters "
            + "(destination, partition_id, \"offset\", message_id, attempts, error) VALUES ($1, $2, $3, $4, $5, $6) "
            + "ON CONFLICT DO NOTHING");
    private static final String STATE = "SELECT s.name, s.delivered, s.failed_attempts, s.paused, s.last_error, s.last_error_at, "
            + "(SELECT count(*) FROM exactly.destination_dead_letters d WHERE d.destination = s.name) AS dead_letters "
            + "FROM exactly.destination_state s WHERE s.queue = $1";
    private static final String PAUSE = "UPDATE exactly.destination_state SET paused = $3 WHERE name = $1 AND queue = $2 RETURNING name";
    private static final String PAUSED = "SELECT name FROM exactly.destination_state WHERE paused";
    // a dead letter being sent keeps its claim (claimed_until): no second worker sends it beside the first; if that
    // send fails, REDRIVE_FAILED keeps this later request and frees the claim. A claim left by an instance that
    // stopped runs out by itself
    private static final String REDRIVE_IDS = "UPDATE exactly.destination_dead_letters SET redrive_requested_at = now(), "
            + "redrive_attempts = 0 WHERE destination = $1 AND message_id = ANY($2) RETURNING message_id";
    private static final String REDRIVE_NEXT = "UPDATE exactly.destination_dead_letters d SET redrive_requested_at = now(), "
            + "claimed_until = NULL, redrive_attempts = 0 FROM (SELECT x.partition_id, x.\"offset\" FROM exactly.destination_dead_letters x "
            + "WHERE x.destination = $1 AND x.redrive_requested_at IS NULL ORDER BY x.dead_lettered_at, x.partition_id, x.\"offset\" "
            + "LIMIT $2) n WHERE d.destination = $1 AND d.partition_id = n.partition_id AND d.\"offset\" = n.\"offset\" "
            + "RETURNING d.message_id";
    // a destination's dead letters, oldest first, after the keyset cursor ($2 µs since the epoch of dead_lettered_at,
    // $3 partition id, $4 offset) when $2 is not null; $5 rows. Read from the dead letters alone, their messages'
    // transactionIds and partition names then by DEAD_LETTER_KEYS and PARTITION_NAMES: under Citus the dead letters are
    // a reference table, and messages and partitions are distributed (an outer join from the former to the latter
    // would be planned by pulling the distributed side)
    private static final String DEAD_LETTERS = "SELECT d.message_id, d.partition_id, d.\"offset\", d.attempts, d.error, "
            + "d.dead_lettered_at, d.redrive_requested_at, "
            + "(extract(epoch FROM d.dead_lettered_at) * 1000000)::bigint AS at_micros "
            + "FROM exactly.destination_dead_letters d "
            + "WHERE d.destination = $1 AND ($2::bigint IS NULL OR ((extract(epoch FROM d.dead_lettered_at) * 1000000)::bigint, "
            + "d.partition_id, d.\"offset\") > ($2::bigint, $3::bigint, $4::bigint)) "
            + "ORDER BY d.dead_lettered_at, d.partition_id, d.\"offset\" LIMIT $5";
    // the transactionIds of messages in those partitions ($1) at those offsets ($2), a superset of the pairs asked for
    private static final String DEAD_LETTER_KEYS = "SELECT partition_id, \"offset\", transaction_id FROM exactly.messages "
            + "WHERE partition_id = ANY($1::bigint[]) AND \"offset\" = ANY($2::bigint[])";
    private static final String PARTITION_NAMES = "SELECT id, name FROM exactly.partitions WHERE id = ANY($1::bigint[])";
    private static final String NOT_REDRIVEN = "SELECT count(*) FROM exactly.destination_dead_letters "
            + "WHERE destination = $1 AND redrive_requested_at IS NULL";
    private static final String REDRIVES_DUE = "SELECT destination, count(*) FROM exactly.destination_dead_letters "
            + "WHERE redrive_requested_at IS NOT NULL AND (claimed_until IS NULL OR claimed_until < now()) GROUP BY destination";
    // the one row is picked in a materialized CTE, evaluated once: as a subquery joined to the UPDATE, a nested loop
    // could run it again for each row of the table, and each run, skipping the rows just claimed, claim another
    static final String CLAIM = "WITH c AS MATERIALIZED (SELECT x.partition_id, x.\"offset\" FROM exactly.destination_dead_letters x "
            + "WHERE x.destination = $1 AND x.redrive_requested_at IS NOT NULL AND (x.claimed_until IS NULL OR x.claimed_until < now()) "
            + "ORDER BY x.partition_id, x.\"offset\" LIMIT 1 FOR UPDATE SKIP LOCKED) "
            + "UPDATE exactly.destination_dead_letters d SET claimed_until = now() + make_interval(secs => $2) FROM c "
            + "WHERE d.destination = $1 AND d.partition_id = c.partition_id AND d.\"offset\" = c.\"offset\" "
            + "RETURNING d.partition_id, d.\"offset\", d.attempts, d.message_id, d.redrive_attempts, d.redrive_requested_at";
    // the partition's name, with the stored message at the offset (its columns null once retention purged it)
    private static final String MESSAGE = "SELECT m.message_id, m.transaction_id, m.payload, m.content_type, p.name AS partition "
            + "FROM exactly.partitions p LEFT JOIN exactly.messages m ON m.partition_id = p.id AND m.\"offset\" = $2 "
            + "WHERE p.id = $1";
    private static final String EXTEND_CLAIM = "UPDATE exactly.destination_dead_letters "
            + "SET claimed_until = now() + make_interval(secs => $4) "
            + "WHERE destination = $1 AND partition_id = $2 AND \"offset\" = $3";
    // the redrive's attempts, written ahead as exactly.destination_attempts' are (FAILED_ATTEMPT)
    private static final String REDRIVE_ATTEMPT = "UPDATE exactly.destination_dead_letters "
            + "SET redrive_attempts = GREATEST(redrive_attempts, $4) "
            + "WHERE destination = $1 AND partition_id = $2 AND \"offset\" = $3";
    // a redrive left until its next attempt is due (a drain's deadline): held until then, not a whole claim
    private static final String PARK_REDRIVE = "UPDATE exactly.destination_dead_letters "
            + "SET claimed_until = now() + make_interval(secs => $4::bigint / 1000.0) "
            + "WHERE destination = $1 AND partition_id = $2 AND \"offset\" = $3";
    private static final String REDRIVEN = "DELETE FROM exactly.destination_dead_letters "
            + "WHERE destination = $1 AND partition_id = $2 AND \"offset\" = $3";
    // the redrive asked for at $6 ends; one asked for again since (a later redrive_requested_at) stays asked for, and
    // is taken up at once, from attempt 1
    private static final String REDRIVE_FAILED = "UPDATE exactly.destination_dead_letters SET redrive_requested_at = "
            + "CASE WHEN redrive_requested_at IS NOT DISTINCT FROM $6 THEN NULL ELSE redrive_requested_at END, "
            + "claimed_until = NULL, redrive_attempts = 0, attempts = $4, error = $5, dead_lettered_at = now() "
            + "WHERE destination = $1 AND partition_id = $2 AND \"offset\" = $3";

    /** The pause before a delete that a deadlock aborted runs again. */
    private static final java.time.Duration CONFLICT_PAUSE = java.time.Duration.ofMillis(50);

    private final Pool pool;

    /** Constructor injection. */
    public DestinationRepository(Pool pool) {
        this.pool = pool;
    }

    /** @return the destinations defined through the API, by name */
    public Uni<List<Destination>> list() {
        return BorrowedConnections.query(pool, LIST)
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> {
                    List<Destination> out = new ArrayList<>();
                    for (Row r : rows) {
                        out.add(toDestination(r));
                    }
                    return out;
                });
    }

    /** @return the destination of that name defined through the API, or null */
    public Uni<Destination> get(String name) {
        return BorrowedConnections.execute(pool, GET, Tuple.of(name))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> rows.size() == 0 ? null : toDestination(rows.iterator().next()));
    }

    /**
     * Creates or replaces a destination defined through the API, and starts it when new. In the same
     * transaction, after its writes, it reads whether a running instance's configuration defines the
     * name (a live mark, {@link #CONFIGURED_LIVE_MS}); if one does, the transaction rolls back.
     *
     * @return true when created, false when replaced; null when the name belongs to a destination of another queue
     * @throws ConfiguredElsewhere (as the Uni's failure) when a running instance's configuration defines the
     *                             name: nothing was written
     */
    public Uni<Boolean> put(Destination d) {
        return BorrowedConnections.withTransaction(pool, conn -> conn.preparedQuery(UPSERT)
                .execute(Tuple.from(new Object[] {d.name(), d.queue(), d.type(), d.url() == null ? null : d.url().toString(),
                        d.signingSecret(), d.timeoutMs(), d.maxAttempts(), d.backoffMs(), d.backoffCapMs(),
                        aws(d).queueUrl(), aws(d).eventBus(), aws(d).source(), aws(d).detailType(), aws(d).region(),
                        aws(d).endpoint(), d.ordered()}))
                .flatMap(rows -> {
                    if (rows.size() == 0) {
                        return Uni.createFrom().nullItem();
                    }
                    boolean created = rows.iterator().next().getBoolean("created");
                    return conn.preparedQuery(START).execute(Tuple.of(d.name(), d.queue(), d.group()))
                            .flatMap(ignored -> conn.preparedQuery(CONFIGURED_LIVE).execute(Tuple.of(d.name())))
                            .map(live -> {
                                if (live.size() > 0) {
                                    throw new ConfiguredElsewhere(d.name(), live.iterator().next().getString("queue"));
                                }
                                return created;
                            });
                }))
                .onFailure().transform(DatabaseErrors.CLASSIFY);
    }

    /**
     * What holds a destination's name on another queue: a destination defined through the API there,
     * or the rows an earlier destination of that name left there (its figures, cursors and dead
     * letters). Names are unique across queues, so a configured destination whose name is held
     * elsewhere is not started ({@link Dispatcher}).
     *
     * @param name  the destination's name
     * @param queue its queue
     * @return the other queue and whether an API destination holds it there; null when nothing does
     */
    public Uni<Holder> heldElsewhere(String name, String queue) {
        return BorrowedConnections.execute(pool, HELD_ELSEWHERE, Tuple.of(name, queue))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(DestinationRepository::holder);
    }

    private static Holder holder(RowSet<Row> rows) {
        if (rows.size() == 0) {
            return null;
        }
        Row r = rows.iterator().next();
        if (r.getString("queue") == null) {
            return null;
        }
        return new Holder(r.getString("queue"), r.getBoolean("api"), r.getBoolean("configured"));
    }

    /**
     * What holds a name on another queue than a configured destination's.
     *
     * @param queue      the other queue
     * @param api        true for a destination defined through the API there, false for the rows of a
     *                   destination of that name there (its figures, cursors and dead letters)
     * @param configured with {@code api} false: true when a running instance's configuration defines that
     *                   destination there (its mark is live), false when the rows are an earlier one's leftovers
     */
    public record Holder(String queue, boolean api, boolean configured) {
    }

    /**
     * A write through the API refused because a running instance's configuration defines the
     * destination's name: its figures row carries a live mark ({@link #CONFIGURED_LIVE_MS}), whichever
     * instance answers. The write's transaction rolled back.
     */
    public static final class ConfiguredElsewhere extends RuntimeException {
        private final String name;
        private final String queue;

        /**
         * @param name  the destination's name
         * @param queue the queue the configuration gives it
         */
        public ConfiguredElsewhere(String name, String queue) {
            super("destination '" + name + "' is defined on queue '" + queue + "' by a running instance's configuration", null,
                    false, false);
            this.name = name;
            this.queue = queue;
        }

        /** @return the destination's name */
        public String name() {
            return name;
        }

        /** @return the queue the configuration gives it */
        public String queue() {
            return queue;
        }
    }

    /**
     * The queue on which a running instance's configuration defines a destination of that name (its
     * figures row's mark is live), or null when none does (as far as the marks say: an instance
     * marks the destinations it configures every {@link #CONFIGURED_MARK_EVERY_MS}).
     */
    public Uni<String> configuredQueue(String name) {
        return BorrowedConnections.execute(pool, CONFIGURED_LIVE, Tuple.of(name))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> rows.size() == 0 ? null : rows.iterator().next().getString("queue"));
    }

    /** Starts a destination (a configured one at start-up): its figures row and, when new, its cursors. */
    public Uni<Void> start(Destination d) {
        return BorrowedConnections.execute(pool, START, Tuple.of(d.name(), d.queue(), d.group()))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .replaceWithVoid();
    }

    /**
     * Starts a configured destination as {@link #start} does, unless its name is held on another queue
     * ({@link #heldElsewhere}): the look and the start in one statement, one round trip. It marks the
     * destination's figures row as configured now (configured_at, by the database's clock), a new row
     * or the one it had: called again every {@link #CONFIGURED_MARK_EVERY_MS} while the destination
     * runs, it keeps the mark live, and starts the destination again (at the end of each partition)
     * if its rows were deleted meanwhile.
     *
     * @return what holds its name on another queue, when something does (then nothing was started nor
     *         marked); null when it started now or had started before (and is marked now)
     */
    public Uni<Holder> startUnlessHeld(Destination d) {
        return BorrowedConnections.execute(pool, START_UNLESS_HELD, Tuple.of(d.name(), d.queue(), d.group()))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(DestinationRepository::holder);
    }

    /**
     * Deletes a destination defined through the API, with its figures, dead letters, recorded
     * attempts and its consumer group's cursors. It takes the rows in the order a dispatcher's ack
     * takes them on PostgreSQL (the group's cursors in ascending partition id and its deliveries,
     * then the figures, then the recorded attempts), so that a delete during an ack waits for it
     * instead of deadlocking with it. Citus runs the ack's figures first (it executes a statement's
     * modifying CTEs before the statement), so there a delete and an ack can still deadlock; the
     * database then aborts one of them, and an aborted delete runs again (up to 3 more times, after
     * 50 ms; an aborted ack is sent again by its dispatcher).
     *
     * <p>With {@code leftovers} it also deletes the rows a destination of that name left on that queue
     * without an API destination there (its figures row found there), as for a configured
     * destination's name held on another queue than its own.
     *
     * <p>When the figures row it deletes carries a live configured mark ({@link #CONFIGURED_LIVE_MS}: a
     * running instance's configuration defines the name), the transaction rolls back: nothing is
     * deleted, whichever instance asked.
     *
     * @param leftovers whether the rows a destination of that name left there count as found
     * @return true when an API destination of that name, or with {@code leftovers} its rows, existed on that queue
     * @throws ConfiguredElsewhere (as the Uni's failure) when a running instance's configuration defines the name
     */
    public Uni<Boolean> delete(String queue, String name, String group, boolean leftovers) {
        return BorrowedConnections.withTransaction(pool, conn -> conn.preparedQuery(DELETE).execute(Tuple.of(name, queue))
                .flatMap(rows -> rows.size() > 0 || !leftovers ? Uni.createFrom().item(rows.size() > 0)
                        : conn.preparedQuery(LEFT_ON).execute(Tuple.of(name, queue)).map(left -> left.size() > 0))
                .flatMap(found -> {
                    if (!found) {
                        return Uni.createFrom().item(false);
                    }
                    return conn.preparedQuery(LOCK_CURSORS).execute(Tuple.of(queue, group))
                            .flatMap(x -> conn.preparedQuery(DELETE_CURSORS).execute(Tuple.of(group)))
                            .flatMap(x -> conn.preparedQuery(DELETE_DELIVERIES).execute(Tuple.of(group)))
                            .flatMap(x -> conn.preparedQuery(DELETE_STATE).execute(Tuple.of(name)))
                            .flatMap(state -> {
                                java.time.OffsetDateTime marked = state.size() == 0 ? null
                                        : state.iterator().next().getOffsetDateTime("configured_at");
                                return marked == null ? Uni.createFrom().item(state)
                                        : conn.preparedQuery(MARK_LIVE).execute(Tuple.of(marked)).invoke(live -> {
                                            if (live.iterator().next().getBoolean("live")) {
                                                throw new ConfiguredElsewhere(name, queue);
                                            }
                                        });
                            })
                            .flatMap(x -> conn.preparedQuery(DELETE_DEAD).execute(Tuple.of(name)))
                            .flatMap(x -> conn.preparedQuery(DELETE_ATTEMPTS).execute(Tuple.of(name)))
                            .map(x -> true);
                }))
                .onFailure(DatabaseErrors::isConflictAbort).retry().withBackOff(CONFLICT_PAUSE).atMost(3)
                .onFailure().transform(DatabaseErrors.CLASSIFY);
    }

    /**
     * Removes a deleted destination's consumer-group rows that a pop under way at its delete wrote
     * back; nothing when a destination of that name exists again.
     *
     * @param name  the destination's name
     * @param group its consumer group
     */
    public Uni<Void> dropOrphanGroup(String name, String group) {
        return BorrowedConnections.withTransaction(pool, conn -> conn.preparedQuery(DROP_ORPHAN_CURSORS).execute(Tuple.of(name, group))
                        .flatMap(x -> conn.preparedQuery(DROP_ORPHAN_DELIVERIES).execute(Tuple.of(name, group)))
                        .replaceWithVoid())
                .onFailure().transform(DatabaseErrors.CLASSIFY);
    }

    /**
     * Adds to a destination's figures; {@code lastError} null keeps the last one, else
     * {@code lastErrorAt} is when it happened (the failed attempt's end, by this instance's clock).
     * Commits asynchronously.
     */
    public Uni<Void> addFigures(String name, long delivered, long failedAttempts, String lastError, OffsetDateTime lastErrorAt) {
        return BorrowedConnections.execute(pool, lastError == null ? FIGURES : FIGURES_ERROR,
                        lastError == null ? Tuple.of(name, delivered, failedAttempts)
                                : Tuple.of(name, delivered, failedAttempts, lastError, lastErrorAt))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .replaceWithVoid();
    }

    /**
     * Acks a destination's settled messages and adds to its figures, in one statement, committed
     * asynchronously (an ack lost in a database crash delivers its messages again, same ids).
     *
     * @param consume        the acks' repository
     * @param acks           the acks, not empty
     * @param name           the destination
     * @param delivered      messages delivered since the last figures written
     * @param failedAttempts attempts that did not deliver since then
     * @param lastError      the last of their errors, or null: the last one is kept
     * @param lastErrorAt    when it happened (the failed attempt's end, by this instance's clock), with a last error
     * @param partitionId    the acks' partition
     * @param settled        the offsets acked: their recorded attempts are deleted
     */
    public Uni<Void> ackAndCount(ConsumeRepository consume, List<dev.exactly.consume.AckCommand> acks,
                                 String name, long delivered, long failedAttempts, String lastError,
                                 OffsetDateTime lastErrorAt, long partitionId, List<Long> settled) {
        Object[] args = lastError == null
                ? new Object[] {name, delivered, failedAttempts, null, partitionId, settled.toArray(Long[]::new)}
                : new Object[] {name, delivered, failedAttempts, lastError, partitionId, settled.toArray(Long[]::new), lastErrorAt};
        return consume.ackWith(acks, lastError == null ? ACK_FIGURES_PARTITION : ACK_FIGURES_ERROR_PARTITION,
                lastError == null ? ACK_FIGURES_BATCH : ACK_FIGURES_ERROR_BATCH, Tuple.from(args)).replaceWithVoid();
    }

    /**
     * Acks a destination's completed batch (every message of it delivered, none failed since the
     * last figures written) and adds to its figures, in one statement committed asynchronously, as
     * {@link #ackAndCount} does, by partition id and offsets under the lease that popped them: no
     * message is looked up by messageId and no dead-lettering is predicted. A lease the partition's
     * cursor no longer holds (it expired and another worker took over) settles nothing.
     *
     * @param name        the destination
     * @param delivered   messages delivered since the last figures written
     * @param group       its consumer group
     * @param partitionId the batch's partition
     * @param leaseId     the lease the batch was popped (or resumed) under
     * @param offsets     the offsets acked: their recorded attempts are deleted
     * @return how many offsets this call settled
     */
    public Uni<Integer> ackCompleted(String name, long delivered, String group, long partitionId, UUID leaseId,
                                     List<Long> offsets) {
        return BorrowedConnections.execute(pool, ACK_COMPLETED,
                        Tuple.from(new Object[] {name, delivered, partitionId, offsets.toArray(Long[]::new), group, leaseId}))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> rows.iterator().next().getInteger("acked"));
    }

    /**
     * One partition's completed batch to ack ({@link #ackCompletedAll}).
     *
     * @param partitionId the batch's partition
     * @param leaseId     the lease the batch was popped (or resumed) under
     * @param offsets     the offsets acked: their recorded attempts are deleted
     * @param delivered   messages delivered since the last figures written for this batch
     */
    public record CompletedAck(long partitionId, UUID leaseId, List<Long> offsets, long delivered) {
    }

    /**
     * What a completed ack did.
     *
     * @param acked    how many offsets it settled
     * @param released whether it released the lease
     */
    public record AckResult(int acked, boolean released) {
    }

    /**
     * Acks several partitions' completed batches of one destination in one statement committed
     * asynchronously, each as {@link #ackCompleted} acks it: the figures updated once (the sum of
     * the delivered counts), the recorded attempts of every (partition, offset) acked deleted, and
     * exactly.ack_completed called once per batch, in ascending partition id order (the one order
     * in which the cursor rows are locked). A batch whose lease the cursor no longer holds settles
     * nothing, the others are acked all the same. One batch takes {@link #ackCompleted}'s statement.
     *
     * @param name  the destination
     * @param group its consumer group
     * @param acks  the batches, not empty (a partition may come twice, under two leases)
     * @return each batch's result, in the order of {@code acks}
     */
    public Uni<List<AckResult>> ackCompletedAll(String name, String group, List<CompletedAck> acks) {
        if (acks.size() == 1) {
            CompletedAck a = acks.get(0);
            return BorrowedConnections.execute(pool, ACK_COMPLETED, Tuple.from(new Object[] {name, a.delivered(), a.partitionId(),
                            a.offsets().toArray(Long[]::new), group, a.leaseId()}))
                    .onFailure().transform(DatabaseErrors.CLASSIFY)
                    .map(rows -> {
                        Row r = rows.iterator().next();
                        return List.of(new AckResult(r.getInteger("acked"), r.getBoolean("released")));
                    });
        }
        Integer[] order = new Integer[acks.size()];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        java.util.Arrays.sort(order, java.util.Comparator.comparingLong(i -> acks.get(i).partitionId()));
        long delivered = 0;
        List<Object> args = new ArrayList<>(3 + 3 * acks.size());
        args.add(name);
        args.add(null); // the delivered sum, below
        args.add(group);
        for (Integer i : order) {
            CompletedAck a = acks.get(i);
            delivered += a.delivered();
            args.add(a.partitionId());
            args.add(a.leaseId());
            args.add(a.offsets().toArray(Long[]::new));
        }
        args.set(1, delivered);
        return BorrowedConnections.execute(pool, ackCompletedStatement(acks.size()), Tuple.from(args))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> {
                    AckResult[] out = new AckResult[acks.size()];
                    for (Row r : rows) {
                        out[order[r.getInteger("i")]] = new AckResult(r.getInteger("acked"), r.getBoolean("released"));
                    }
                    for (AckResult r : out) {
                        if (r == null) {
                            throw new IllegalStateException("a fused completed ack answered no row for one of its batches");
                        }
                    }
                    return List.of(out);
                });
    }

    /**
     * The statement of {@link #ackCompletedAll} for {@code n} batches: $1 name, $2 the delivered
     * sum, $3 the consumer group; then per batch, in ascending partition id order, its partition,
     * lease and offsets ($4, $5, $6 for the first). Row i answers the i-th batch of that order; the
     * branches of the UNION ALL run in their order, so the cursor rows are locked in it.
     */
    static String ackCompletedStatement(int n) {
        return ACK_COMPLETED_N.computeIfAbsent(n, k -> {
            StringBuilder settled = new StringBuilder();
            StringBuilder calls = new StringBuilder();
            for (int i = 0; i < k; i++) {
                int pid = 4 + 3 * i;
                int lease = pid + 1;
                int offsets = pid + 2;
                settled.append(i == 0 ? "" : " OR ").append("(partition_id = $").append(pid)
                        .append(" AND \"offset\" = ANY($").append(offsets).append("::bigint[]))");
                calls.append(i == 0 ? "" : " UNION ALL ").append("SELECT ").append(i).append(" AS i, a.acked, a.released ")
                        .append("FROM exactly.ack_completed(p_pid => $").append(pid).append(", p_group => $3, p_lease => $")
                        .append(lease).append(", p_offsets => $").append(offsets).append(") a");
            }
            return "WITH figures AS (UPDATE exactly.destination_state SET delivered = delivered + $2 WHERE name = $1), "
                    + "settled AS (DELETE FROM exactly.destination_attempts WHERE destination = $1 AND (" + settled + ")) "
                    + "SELECT k.i, k.acked, k.released" + ConsumeRepository.ASYNC_COMMIT + " FROM (" + calls + ") k";
        });
    }

    /** Records that attempt {@code attempt} at a message failed and is to be followed by another. */
    public Uni<Void> failedAttempt(String name, long partitionId, long offset, int attempt) {
        return BorrowedConnections.execute(pool, FAILED_ATTEMPT, Tuple.of(name, partitionId, offset, attempt))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .replaceWithVoid();
    }

    /** @return the attempts recorded for a destination's messages of a partition from {@code from} to {@code to}, by offset */
    public Uni<java.util.Map<Long, Integer>> attempts(String name, long partitionId, long from, long to) {
        return BorrowedConnections.execute(pool, ATTEMPTS, Tuple.of(name, partitionId, from, to))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> {
                    java.util.Map<Long, Integer> out = new java.util.HashMap<>();
                    rows.forEach(r -> out.put(r.getLong(0), r.getInteger(1)));
                    return out;
                });
    }

    /**
     * Records a message dead-lettered for a destination (a repeat of the same one changes nothing).
     * Commits asynchronously: lost in a database crash, so is the ack after it; the message is
     * leased again and dead-lettered again (without a send when its last attempt was recorded).
     */
    public Uni<Void> deadLetter(String name, long partitionId, long offset, UUID messageId, int attempts, String error) {
        return BorrowedConnections.execute(pool, DEAD_LETTER,
                        Tuple.from(new Object[] {name, partitionId, offset, messageId, attempts, error}))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .replaceWithVoid();
    }

    /**
     * A destination's figures.
     *
     * @param name           destination name
     * @param delivered      messages delivered
     * @param failedAttempts attempts that did not deliver
     * @param deadLetters    messages dead-lettered for it now (not redriven and delivered since)
     * @param paused         whether it is paused
     * @param lastError      the last attempt's error, or null
     * @param lastErrorAt    when, or null
     */
    public record Figures(String name, long delivered, long failedAttempts, long deadLetters, boolean paused,
                          String lastError, OffsetDateTime lastErrorAt) {
    }

    /** @return the figures of every destination of a queue */
    public Uni<List<Figures>> figures(String queue) {
        return BorrowedConnections.execute(pool, STATE, Tuple.of(queue))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> {
                    List<Figures> out = new ArrayList<>();
                    for (Row r : rows) {
                        out.add(new Figures(r.getString("name"), r.getLong("delivered"), r.getLong("failed_attempts"),
                                r.getLong("dead_letters"), r.getBoolean("paused"), r.getString("last_error"),
                                r.getOffsetDateTime("last_error_at")));
                    }
                    return out;
                });
    }

    /** @return true when the destination's state row exists on that queue and now says {@code paused} */
    public Uni<Boolean> pause(String queue, String name, boolean paused) {
        return BorrowedConnections.execute(pool, PAUSE, Tuple.of(name, queue, paused))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> rows.size() > 0);
    }

    /** @return the names of the paused destinations */
    public Uni<Set<String>> paused() {
        return BorrowedConnections.query(pool, PAUSED)
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> {
                    Set<String> out = new HashSet<>();
                    rows.forEach(r -> out.add(r.getString(0)));
                    return out;
                });
    }

    /**
     * Asks for dead letters of a destination to be sent again: those named, or the next {@code limit}
     * not asked for yet, oldest first.
     *
     * @return the message ids asked for
     */
    public Uni<List<UUID>> requestRedrive(String name, List<UUID> messageIds, int limit) {
        Uni<io.vertx.mutiny.sqlclient.RowSet<Row>> rows = messageIds != null
                ? BorrowedConnections.execute(pool, REDRIVE_IDS, Tuple.of(name, messageIds.toArray(UUID[]::new)))
                : BorrowedConnections.execute(pool, REDRIVE_NEXT, Tuple.of(name, limit));
        return rows.onFailure().transform(DatabaseErrors.CLASSIFY).map(found -> {
            List<UUID> out = new ArrayList<>();
            found.forEach(r -> out.add(r.getUUID(0)));
            return out;
        });
    }

    /**
     * A dead letter of a destination, as its listing reads it.
     *
     * @param entry       what the listing answers
     * @param atMicros    when it was dead-lettered, in microseconds since the epoch (for the cursor)
     * @param partitionId its partition's id (for the cursor)
     */
    public record DeadLetter(DestinationDeadLetters.Entry entry, long atMicros, long partitionId) {
    }

    /**
     * A destination's dead letters, oldest first (by when they were dead-lettered, then partition id
     * and offset).
     *
     * @param name            the destination
     * @param afterMicros     the cursor's time (µs since the epoch), or null for the first page
     * @param afterPartition  the cursor's partition id (ignored without {@code afterMicros})
     * @param afterOffset     the cursor's offset (likewise)
     * @param limit           most rows answered
     */
    public Uni<List<DeadLetter>> deadLetters(String name, Long afterMicros, long afterPartition, long afterOffset, int limit) {
        return BorrowedConnections.execute(pool, DEAD_LETTERS,
                        Tuple.from(new Object[] {name, afterMicros, afterPartition, afterOffset, limit}))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .flatMap(rows -> {
                    List<Row> page = new ArrayList<>(rows.size());
                    rows.forEach(page::add);
                    if (page.isEmpty()) {
                        return Uni.createFrom().item(List.<DeadLetter>of());
                    }
                    Long[] pids = page.stream().map(r -> r.getLong("partition_id")).distinct().toArray(Long[]::new);
                    Long[] offsets = page.stream().map(r -> r.getLong("offset")).distinct().toArray(Long[]::new);
                    return BorrowedConnections.execute(pool, DEAD_LETTER_KEYS, Tuple.of(pids, offsets))
                            .flatMap(keys -> BorrowedConnections.execute(pool, PARTITION_NAMES, Tuple.of((Object) pids))
                                    .map(names -> {
                                        java.util.Map<String, String> txn = new java.util.HashMap<>();
                                        keys.forEach(k -> txn.put(k.getLong(0) + ":" + k.getLong(1), k.getString(2)));
                                        java.util.Map<Long, String> partition = new java.util.HashMap<>();
                                        names.forEach(n -> partition.put(n.getLong(0), n.getString(1)));
                                        List<DeadLetter> out = new ArrayList<>(page.size());
                                        for (Row r : page) {
                                            long pid = r.getLong("partition_id");
                                            long offset = r.getLong("offset");
                                            out.add(new DeadLetter(new DestinationDeadLetters.Entry(r.getUUID("message_id"),
                                                    txn.get(pid + ":" + offset), partition.get(pid), offset,
                                                    r.getInteger("attempts"), r.getString("error"),
                                                    r.getOffsetDateTime("dead_lettered_at"),
                                                    r.getOffsetDateTime("redrive_requested_at")),
                                                    r.getLong("at_micros"), pid));
                                        }
                                        return out;
                                    }))
                            .onFailure().transform(DatabaseErrors.CLASSIFY);
                });
    }

    /** @return how many dead letters of the destination no redrive has asked for */
    public Uni<Long> notRedriven(String name) {
        return BorrowedConnections.execute(pool, NOT_REDRIVEN, Tuple.of(name))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> rows.iterator().next().getLong(0));
    }

    /** @return the destinations with redriven dead letters no instance holds, with how many each has */
    public Uni<Map<String, Long>> redrivesDue() {
        return BorrowedConnections.query(pool, REDRIVES_DUE)
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> {
                    Map<String, Long> out = new HashMap<>();
                    rows.forEach(r -> out.put(r.getString(0), r.getLong(1)));
                    return out;
                });
    }

    /**
     * A redriven dead letter an instance holds, with its message.
     *
     * @param partitionId   its partition's id
     * @param offset        its offset
     * @param messageId     its message's id
     * @param partition     its partition's name, or null when the partition is gone
     * @param message       the stored message, or null when retention purged its data
     * @param attempts      the attempts this redrive made so far (0 when it has not started), as
     *                      {@link #redriveAttempt} recorded them
     * @param requestedAt   when the redrive being sent was asked for ({@link #redriveFailed} keeps a later request)
     */
    public record Redrive(long partitionId, long offset, UUID messageId, String partition, Stored message, int attempts,
                          OffsetDateTime requestedAt) {
    }

    /** A stored message's fields a delivery sends. */
    public record Stored(UUID messageId, String transactionId, String partition, byte[] payload, String contentType) {
    }

    /** Holds the next redriven dead letter of a destination for {@code seconds}; null when none is due. */
    public Uni<Redrive> claimRedrive(String name, int seconds) {
        return BorrowedConnections.execute(pool, CLAIM, Tuple.of(name, seconds))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .flatMap(rows -> {
                    if (rows.size() == 0) {
                        return Uni.createFrom().nullItem();
                    }
                    Row c = rows.iterator().next();
                    long pid = c.getLong("partition_id");
                    long offset = c.getLong("offset");
                    UUID messageId = c.getUUID("message_id");
                    int made = c.getInteger("redrive_attempts");
                    OffsetDateTime asked = c.getOffsetDateTime("redrive_requested_at");
                    return BorrowedConnections.execute(pool, MESSAGE, Tuple.of(pid, offset))
                            .onFailure().transform(DatabaseErrors.CLASSIFY)
                            .map(m -> {
                                if (m.size() == 0) {
                                    return new Redrive(pid, offset, messageId, null, null, made, asked);
                                }
                                Row r = m.iterator().next();
                                String partition = r.getString("partition");
                                if (r.getUUID("message_id") == null) {
                                    return new Redrive(pid, offset, messageId, partition, null, made, asked);
                                }
                                return new Redrive(pid, offset, messageId, partition, new Stored(r.getUUID("message_id"),
                                        r.getString("transaction_id"), partition, r.getBuffer("payload").getBytes(),
                                        r.getString("content_type")), made, asked);
                            });
                });
    }

    /** Holds a redriven dead letter {@code seconds} longer. */
    public Uni<Void> extendClaim(String name, long partitionId, long offset, int seconds) {
        return BorrowedConnections.execute(pool, EXTEND_CLAIM, Tuple.of(name, partitionId, offset, seconds))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .replaceWithVoid();
    }

    /**
     * Records the attempts a redrive has made at a dead letter (never lowers them), so that a
     * redrive taken up again goes on from there.
     *
     * @param attempts the number of the attempt made or about to be made
     */
    public Uni<Void> redriveAttempt(String name, long partitionId, long offset, int attempts) {
        return BorrowedConnections.execute(pool, REDRIVE_ATTEMPT, Tuple.of(name, partitionId, offset, attempts))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .replaceWithVoid();
    }

    /**
     * Holds a redriven dead letter until its next attempt is due, {@code dueInMs} milliseconds from
     * now (a drain left it before its backoff ended; 0 when a pause or a stop cut it off): then any
     * worker or drain takes it up again, going on from the attempts recorded.
     */
    public Uni<Void> parkRedrive(String name, long partitionId, long offset, long dueInMs) {
        return BorrowedConnections.execute(pool, PARK_REDRIVE, Tuple.of(name, partitionId, offset, dueInMs))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .replaceWithVoid();
    }

    /** A redriven dead letter was delivered: it is no longer one. */
    public Uni<Void> redriven(String name, long partitionId, long offset) {
        return BorrowedConnections.execute(pool, REDRIVEN, Tuple.of(name, partitionId, offset))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .replaceWithVoid();
    }

    /**
     * A redriven dead letter failed its attempts again (or its data is gone): it stays a dead letter.
     * A redrive of it asked for after {@code requestedAt} (while this one was sending) stays asked for.
     *
     * @param requestedAt when the redrive that failed was asked for ({@link Redrive#requestedAt})
     */
    public Uni<Void> redriveFailed(String name, long partitionId, long offset, int attempts, String error,
                                   OffsetDateTime requestedAt) {
        return BorrowedConnections.execute(pool, REDRIVE_FAILED,
                        Tuple.from(new Object[] {name, partitionId, offset, attempts, error, requestedAt}))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .replaceWithVoid();
    }

    /**
     * The statement of {@link #ackAndCount}, for an ack routed by partition id or not, with a last
     * error (and its time, $7, the ack's parameters from $8) or not (the ack's from $7); a whole
     * statement, so that the SQL checks read it as one.
     */
    private static String ackFigures(boolean partition, boolean error) {
        return "WITH figures AS (UPDATE exactly.destination_state SET delivered = delivered + $2, "
                + "failed_attempts = failed_attempts + $3, "
                + (error ? lastError(4, 7) + " " : "last_error = COALESCE($4::text, last_error) ")
                + "WHERE name = $1), "
                + "settled AS (DELETE FROM exactly.destination_attempts WHERE destination = $1 AND partition_id = $5 "
                + "AND \"offset\" = ANY($6::bigint[])) " + ConsumeRepository.ack(partition, error ? 8 : 7) + ConsumeRepository.ASYNC_COMMIT;
    }

    /**
     * The SET items that record a failure ($error, at $at) as the destination's last error unless
     * a later one is recorded already: workers of several partitions (or of one unordered batch)
     * write their figures in whatever order their transactions run, and lastError must stay the
     * most recent failure.
     */
    private static String lastError(int error, int at) {
        return "last_error = CASE WHEN last_error_at IS NULL OR last_error_at <= $" + at + " THEN $" + error
                + " ELSE last_error END, last_error_at = GREATEST(last_error_at, $" + at + ")";
    }

    /**
     * A write of the dispatcher's own bookkeeping whose transaction commits without waiting for its
     * WAL flush (synchronous_commit off for that transaction only; {@link ConsumeRepository#ASYNC_COMMIT}
     * says when that is right): the write as a CTE, which runs whatever the query reads of it, and
     * set_config in the query, which runs once.
     */
    private static String asyncCommit(String write) {
        return "WITH w AS (" + write + ") SELECT set_config('synchronous_commit', 'off', true)";
    }

    /**
     * The insert of a new destination's cursors ($2 its queue, $3 its group), when the statement's CTE
     * {@code s} inserted its figures row (a row of {@code s} for which {@code inserted}, an SQL
     * condition on it, holds): one per partition, after the partition's last offset.
     */
    private static String startCursors(String inserted) {
        return "INSERT INTO exactly.consumer_cursors AS c (partition_id, consumer_group, next_offset, start_offset) "
                + "SELECT p.id, $3, p.last_offset + 1, p.last_offset + 1 FROM exactly.partitions p JOIN exactly.queues q ON q.id = p.queue_id "
                + "WHERE q.name = $2 AND EXISTS (SELECT 1 FROM s WHERE " + inserted + ") ON CONFLICT (partition_id, consumer_group) DO UPDATE "
                + "SET next_offset = EXCLUDED.next_offset, start_offset = EXCLUDED.start_offset, available_at = '-infinity', "
                + "lease_id = NULL, lease_from = NULL, lease_to = NULL, lease_expires_at = NULL, leased_at = NULL, "
                + "prev_lease_id = NULL, prev_lease_from = NULL, prev_lease_to = NULL";
    }

    private static Destination.Aws aws(Destination d) {
        return d.aws() == null ? new Destination.Aws(null, null, null, null, null, null) : d.aws();
    }

    private static Destination toDestination(Row r) {
        String url = r.getString("url");
        String type = r.getString("type");
        Destination.Aws aws = DestinationRules.HTTP.equals(type) ? null
                : new Destination.Aws(r.getString("queue_url"), r.getString("event_bus"), r.getString("source"),
                        r.getString("detail_type"), r.getString("region"), r.getString("endpoint"));
        return new Destination(r.getString("name"), r.getString("queue"), type, url == null ? null : URI.create(url),
                r.getString("signing_secret"), r.getInteger("timeout_ms"), r.getInteger("max_attempts"),
                r.getInteger("backoff_ms"), r.getInteger("backoff_cap_ms"), false, aws, r.getBoolean("ordered"));
    }
}
