package dev.exactly.destination;

import dev.exactly.db.BorrowedConnections;
import dev.exactly.db.DatabaseErrors;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.net.URI;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Data access for destinations (tables of sql/V21__destinations.sql): the destinations defined
 * through the API, every destination's figures and dead letters, and the start of a destination's
 * consumer group.
 */
@ApplicationScoped
public class DestinationRepository {

    private static final String COLUMNS = "name, queue, type, url, signing_secret, timeout_ms, max_attempts, "
            + "backoff_ms, backoff_cap_ms";
    private static final String LIST = "SELECT " + COLUMNS + " FROM exactly.destinations ORDER BY name";
    private static final String GET = "SELECT " + COLUMNS + " FROM exactly.destinations WHERE name = $1";
    private static final String UPSERT = "INSERT INTO exactly.destinations (" + COLUMNS + ") "
            + "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (name) DO UPDATE SET type = EXCLUDED.type, "
            + "url = EXCLUDED.url, signing_secret = EXCLUDED.signing_secret, timeout_ms = EXCLUDED.timeout_ms, "
            + "max_attempts = EXCLUDED.max_attempts, backoff_ms = EXCLUDED.backoff_ms, "
            + "backoff_cap_ms = EXCLUDED.backoff_cap_ms WHERE exactly.destinations.queue = EXCLUDED.queue "
            + "RETURNING (xmax = 0) AS created";
    // a new destination's cursors start after each partition's last offset (what is stored from now on)
    private static final String START = "WITH s AS (INSERT INTO exactly.destination_state (name, queue) VALUES ($1, $2) "
            + "ON CONFLICT (name) DO NOTHING RETURNING name) "
            + "INSERT INTO exactly.consumer_cursors (partition_id, consumer_group, next_offset) "
            + "SELECT p.id, $3, p.last_offset + 1 FROM exactly.partitions p JOIN exactly.queues q ON q.id = p.queue_id "
            + "WHERE q.name = $2 AND EXISTS (SELECT 1 FROM s) ON CONFLICT DO NOTHING";
    private static final String DELETE = "DELETE FROM exactly.destinations WHERE name = $1 AND queue = $2 RETURNING name";
    private static final String DELETE_STATE = "DELETE FROM exactly.destination_state WHERE name = $1";
    private static final String DELETE_DEAD = "DELETE FROM exactly.destination_dead_letters WHERE destination = $1";
    private static final String DELETE_CURSORS = "DELETE FROM exactly.consumer_cursors WHERE consumer_group = $1";
    private static final String DELETE_DELIVERIES = "DELETE FROM exactly.deliveries WHERE consumer_group = $1";
    private static final String FIGURES = "UPDATE exactly.destination_state SET delivered = delivered + $2, "
            + "failed_attempts = failed_attempts + $3, dead_letters = dead_letters + $4, "
            + "last_error = COALESCE($5, last_error), "
            + "last_error_at = CASE WHEN $5 IS NULL THEN last_error_at ELSE clock_timestamp() END WHERE name = $1";
    private static final String DEAD_LETTER = "INSERT INTO exactly.destination_dead_letters "
            + "(destination, partition_id, \"offset\", message_id, attempts, error) VALUES ($1, $2, $3, $4, $5, $6) "
            + "ON CONFLICT DO NOTHING";
    private static final String STATE = "SELECT name, delivered, failed_attempts, dead_letters, last_error, last_error_at "
            + "FROM exactly.destination_state WHERE queue = $1";

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
     * Creates or replaces a destination defined through the API, and starts it when new.
     *
     * @return true when created, false when replaced; null when the name belongs to a destination of another queue
     */
    public Uni<Boolean> put(Destination d) {
        return BorrowedConnections.withTransaction(pool, conn -> conn.preparedQuery(UPSERT)
                .execute(Tuple.from(new Object[] {d.name(), d.queue(), d.type(), d.url().toString(), d.signingSecret(),
                        d.timeoutMs(), d.maxAttempts(), d.backoffMs(), d.backoffCapMs()}))
                .flatMap(rows -> {
                    if (rows.size() == 0) {
                        return Uni.createFrom().nullItem();
                    }
                    boolean created = rows.iterator().next().getBoolean("created");
                    return conn.preparedQuery(START).execute(Tuple.of(d.name(), d.queue(), d.group()))
                            .map(ignored -> created);
                }))
                .onFailure().transform(DatabaseErrors.CLASSIFY);
    }

    /** Starts a destination (a configured one at start-up): its figures row and, when new, its cursors. */
    public Uni<Void> start(Destination d) {
        return BorrowedConnections.execute(pool, START, Tuple.of(d.name(), d.queue(), d.group()))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .replaceWithVoid();
    }

    /**
     * Deletes a destination defined through the API, with its figures, dead letters and its
     * consumer group's cursors.
     *
     * @return true when it existed on that queue
     */
    public Uni<Boolean> delete(String queue, String name, String group) {
        return BorrowedConnections.withTransaction(pool, conn -> conn.preparedQuery(DELETE).execute(Tuple.of(name, queue))
                .flatMap(rows -> {
                    if (rows.size() == 0) {
                        return Uni.createFrom().item(false);
                    }
                    return conn.preparedQuery(DELETE_STATE).execute(Tuple.of(name))
                            .flatMap(x -> conn.preparedQuery(DELETE_DEAD).execute(Tuple.of(name)))
                            .flatMap(x -> conn.preparedQuery(DELETE_CURSORS).execute(Tuple.of(group)))
                            .flatMap(x -> conn.preparedQuery(DELETE_DELIVERIES).execute(Tuple.of(group)))
                            .map(x -> true);
                }))
                .onFailure().transform(DatabaseErrors.CLASSIFY);
    }

    /** Adds to a destination's figures; {@code lastError} null keeps the last one. */
    public Uni<Void> addFigures(String name, long delivered, long failedAttempts, long deadLetters, String lastError) {
        return BorrowedConnections.execute(pool, FIGURES, Tuple.of(name, delivered, failedAttempts, deadLetters, lastError))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .replaceWithVoid();
    }

    /** Records a message dead-lettered for a destination (a repeat of the same one changes nothing). */
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
     * @param deadLetters    messages dead-lettered for it
     * @param lastError      the last attempt's error, or null
     * @param lastErrorAt    when, or null
     */
    public record Figures(String name, long delivered, long failedAttempts, long deadLetters, String lastError,
                          OffsetDateTime lastErrorAt) {
    }

    /** @return the figures of every destination of a queue */
    public Uni<List<Figures>> figures(String queue) {
        return BorrowedConnections.execute(pool, STATE, Tuple.of(queue))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> {
                    List<Figures> out = new ArrayList<>();
                    for (Row r : rows) {
                        out.add(new Figures(r.getString("name"), r.getLong("delivered"), r.getLong("failed_attempts"),
                                r.getLong("dead_letters"), r.getString("last_error"), r.getOffsetDateTime("last_error_at")));
                    }
                    return out;
                });
    }

    private static Destination toDestination(Row r) {
        return new Destination(r.getString("name"), r.getString("queue"), r.getString("type"), URI.create(r.getString("url")),
                r.getString("signing_secret"), r.getInteger("timeout_ms"), r.getInteger("max_attempts"),
                r.getInteger("backoff_ms"), r.getInteger("backoff_cap_ms"), false);
    }
}
