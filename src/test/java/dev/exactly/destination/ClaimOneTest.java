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
        int claimed = inRolledBack(join, c -> {
            String d = "claim-one-" + System.nanoTime();
            // the table's statistics as a destination's first dead letters find them: one row, of another destination
            return c.query("DELETE FROM exactly.destination_dead_letters").execute()
                    .chain(() -> c.query("INSERT INTO exactly.destination_dead_letters (destination, partition_id, \"offset\", "
                            + "message_id, attempts, error) VALUES ('another', 1, 0, gen_random_uuid(), 1, 'x')").execute())
                    .chain(() -> c.query("ANALYZE exactly.destination_dead_letters").execute())
                    .chain(() -> c.preparedQuery("INSERT INTO exactly.destination_dead_letters (destination, partition_id, \"offset\", "
                            + "message_id, attempts, error, redrive_requested_at) "
                            + "SELECT $1, 1, o, gen_random_uuid(), 1, 'x', now() FROM generate_series(1, 3) o")
                    .execute(Tuple.of(d)))
                    .chain(() -> c.preparedQuery(DestinationRepository.CLAIM).execute(Tuple.of(d, 30)))
                    .chain(() -> c.preparedQuery("SELECT count(*) FROM exactly.destination_dead_letters "
                            + "WHERE destination = $1 AND claimed_until IS NOT NULL").execute(Tuple.of(d)))
                    .map(rows -> rows.iterator().next().getLong(0).intValue());
        });
        assertEquals(1, claimed, "dead letters claimed with " + join + " as the only join method");
    }

    @ParameterizedTest
    @ValueSource(strings = {"nestloop", "hashjoin", "mergejoin"})
    void aParkedPartitionClaimTakesOnePartitionOfSeveralDue(String join) {
        int claimed = inRolledBack(join, c -> {
            String d = "claim-parked-" + System.nanoTime();
            return c.query("DELETE FROM exactly.destination_parked").execute()
                    .chain(() -> c.query("INSERT INTO exactly.destination_parked (destination, partition_id, lease_id, "
                            + "next_offset, attempt, due_at) VALUES ('another', 1, gen_random_uuid(), 0, 2, now())").execute())
                    .chain(() -> c.query("ANALYZE exactly.destination_parked").execute())
                    .chain(() -> c.preparedQuery("INSERT INTO exactly.destination_parked (destination, partition_id, lease_id, next_offset, "
                            + "attempt, due_at) SELECT $1, p, gen_random_uuid(), 0, 2, now() - interval '1 second' "
                            + "FROM generate_series(1, 3) p")
                    .execute(Tuple.of(d)))
                    .chain(() -> c.preparedQuery("SELECT * FROM exactly.claim_parked(p_destination => $1, p_seconds => 30)")
                            .execute(Tuple.of(d)))
                    .chain(() -> c.preparedQuery("SELECT count(*) FROM exactly.destination_parked "
                            + "WHERE destination = $1 AND claimed_until IS NOT NULL").execute(Tuple.of(d)))
                    .map(rows -> rows.iterator().next().getLong(0).intValue());
        });
        assertEquals(1, claimed, "parked partitions claimed with " + join + " as the only join method");
    }

    @ParameterizedTest
    @ValueSource(strings = {"nestloop", "hashjoin", "mergejoin"})
    void aTaskClaimTakesNoMoreTasksThanItsLimit(String join) {
        int claimed = inRolledBack(join, c -> {
            String q = "claim-tasks-" + System.nanoTime();
            String insert = "INSERT INTO exactly.tasks (queue, task_id, type, data, run_at, max_retries, retry_delay_seconds) "
                    + "SELECT $1, 't' || n, 'x', '\\x7b7d'::bytea, now() - interval '1 second', 0, 0 FROM generate_series(1, $2) n";
            return c.query("DELETE FROM exactly.tasks").execute()
                    .chain(() -> c.preparedQuery(insert).execute(Tuple.of("another", 1)))
                    .chain(() -> c.query("ANALYZE exactly.tasks").execute())
                    .chain(() -> c.preparedQuery(insert).execute(Tuple.of(q, 3)))
                    .chain(() -> c.preparedQuery("SELECT * FROM exactly.claim_tasks($1, NULL, 1, 30)").execute(Tuple.of(q)))
                    .chain(() -> c.preparedQuery("SELECT count(*) FROM exactly.tasks WHERE queue = $1 AND state = 'running'")
                            .execute(Tuple.of(q)))
                    .map(rows -> rows.iterator().next().getLong(0).intValue());
        });
        assertEquals(1, claimed, "tasks claimed with a limit of 1 and " + join + " as the only join method");
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
