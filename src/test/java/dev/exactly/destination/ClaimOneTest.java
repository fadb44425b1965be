package dev.exactly.destination;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The statements that claim one row of several due ones (a destination's next redriven dead letter,
 * a destination's next parked partition) claim exactly one, and a worker's claim of tasks no more
 * than its limit, whatever join the planner picks: each
 * runs here under each join method PostgreSQL has alone, with the statistics of a table that held one
 * row and scans of the whole table (the plan such a table gets), with three due rows, in a transaction
 * rolled back. (On Citus both tables are reference tables; the Citus suites run these claims too.)
 * A claim's subquery re-run per row of a nested loop claimed every due row, and a worker then found
 * none left to send until their claims ran out.
 */
@QuarkusTest
class ClaimOneTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @Inject
    Pool pool;

    @ParameterizedTest
    @ValueSource(strings = {"nestloop", "hashjoin", "mergejoin"})
    void aRedriveClaimTakesOneDeadLetterOfSeveralDue(String join) {
        String insert = "INSERT INTO exactly.destination_dead_letters (destination, partition_id, \"offset\", message_id, "
                + "attempts, error, redrive_requested_at) SELECT $1, 1, o, gen_random_uuid(), 1, 'x', now() FROM generate_series(1, $2) o";
        assertEquals(1, claimed(join, "exactly.destination_dead_letters", insert, DestinationRepository.CLAIM,
                "SELECT count(*) FROM exactly.destination_dead_letters WHERE destination = $1 AND claimed_until IS NOT NULL", 30),
                "dead letters claimed with " + join + " as the only join method");
    }

    @ParameterizedTest
    @ValueSource(strings = {"nestloop", "hashjoin", "mergejoin"})
    void aParkedPartitionClaimTakesOnePartitionOfSeveralDue(String join) {
        String insert = "INSERT INTO exactly.destination_parked (destination, partition_id, lease_id, next_offset, attempt, due_at) "
                + "SELECT $1, p, gen_random_uuid(), 0, 2, now() - interval '1 second' FROM generate_series(1, $2) p";
        assertEquals(1, claimed(join, "exactly.destination_parked", insert,
                "SELECT * FROM exactly.claim_parked(p_destination => $1, p_seconds => $2)",
                "SELECT count(*) FROM exactly.destination_parked WHERE destination = $1 AND claimed_until IS NOT NULL", 30),
                "parked partitions claimed with " + join + " as the only join method");
    }

    @ParameterizedTest
    @ValueSource(strings = {"nestloop", "hashjoin", "mergejoin"})
    void aTaskClaimTakesNoMoreTasksThanItsLimit(String join) {
        String insert = "INSERT INTO exactly.tasks (queue, task_id, type, data, run_at, max_retries, retry_delay_seconds) "
                + "SELECT $1, 't' || n, 'x', '\\x7b7d'::bytea, now() - interval '1 second', 0, 0 FROM generate_series(1, $2) n";
        assertEquals(1, claimed(join, "exactly.tasks", insert, "SELECT * FROM exactly.claim_tasks($1, NULL, $2, 30)",
                "SELECT count(*) FROM exactly.tasks WHERE queue = $1 AND state = 'running'", 1),
                "tasks claimed with a limit of 1 and " + join + " as the only join method");
    }

    /**
     * Empties {@code table} and leaves it with the statistics of one row of another key (as a key's first
     * rows find it), adds three due rows of a new key ({@code insert}: $1 the key, $2 how many), runs
     * {@code claim} ($1 the key, $2 {@code argument}) and answers {@code count} ($1 the key) of the rows
     * claimed; all with {@code join} the only join method, in a transaction rolled back.
     */
    private int claimed(String join, String table, String insert, String claim, String count, int argument) {
        String key = "claim-" + System.nanoTime();
        return inRolledBack(join, c -> c.query("DELETE FROM " + table).execute()
                .chain(() -> c.preparedQuery(insert).execute(Tuple.of("another", 1)))
                .chain(() -> c.query("ANALYZE " + table).execute())
                .chain(() -> c.preparedQuery(insert).execute(Tuple.of(key, 3)))
                .chain(() -> c.preparedQuery(claim).execute(Tuple.of(key, argument)))
                .chain(() -> c.preparedQuery(count).execute(Tuple.of(key)))
                .map(rows -> rows.iterator().next().getLong(0).intValue()));
    }

    /** Runs {@code work} in a transaction rolled back, with {@code join} the only join method the planner may use. */
    private int inRolledBack(String join, Function<SqlConnection, io.smallrye.mutiny.Uni<Integer>> work) {
        return pool.withConnection(c -> c.query("BEGIN").execute()
                        .chain(() -> c.query("SET LOCAL enable_nestloop = " + ("nestloop".equals(join))).execute())
                        .chain(() -> c.query("SET LOCAL enable_hashjoin = " + ("hashjoin".equals(join))).execute())
                        .chain(() -> c.query("SET LOCAL enable_mergejoin = " + ("mergejoin".equals(join))).execute())
                        // scans of the whole (small) table, as the planner picks while a table holds a few rows
                        .chain(() -> c.query("SET LOCAL enable_indexscan = off").execute())
                        .chain(() -> c.query("SET LOCAL enable_bitmapscan = off").execute())
                        .chain(() -> c.query("SET LOCAL enable_material = off").execute())
                        .chain(() -> work.apply(c))
                        .onTermination().call(() -> c.query("ROLLBACK").execute().onFailure().recoverWithNull()))
                .await().atMost(WAIT);
    }
}
