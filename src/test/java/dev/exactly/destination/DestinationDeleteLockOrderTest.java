package dev.exactly.destination;

import static dev.exactly.destination.DestinationFixtures.fresh;
import static dev.exactly.destination.DestinationFixtures.pause;
import static dev.exactly.destination.DestinationFixtures.push;
import static dev.exactly.testing.Api.api;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Deleting a destination while its dispatcher acks a batch: both take the same rows. On PostgreSQL
 * an ack locks its partition's cursor first and the destination's figures after
 * (exactly.ack_completed, then the figures CTE), and the delete takes them in that order, so it
 * waits for the ack. Citus runs the figures first; there the two can deadlock, and the delete that
 * the database aborts runs again instead of answering 503. The tests play the ack's two steps, in
 * either order, on a connection of their own around a delete that waits between them.
 */
@QuarkusTest
class DestinationDeleteLockOrderTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    /** An ack's first step on PostgreSQL: its partition's cursor (exactly.ack_completed). */
    private static final String LOCK_CURSOR = "SELECT 1 FROM exactly.consumer_cursors WHERE consumer_group = $1 FOR UPDATE";
    /** An ack's figures (its figures CTE). */
    private static final String ADD_FIGURES = "UPDATE exactly.destination_state SET delivered = delivered + 1 WHERE name = $1";

    @Inject
    Pool pool;

    @Inject
    DestinationRepository repository;

    @Test
    void aDeleteBetweenAnAcksCursorAndItsFiguresWaitsForTheAckAndNeitherFails() throws Exception {
        Created c = pausedDestination();
        // the ack's steps in PostgreSQL's order; the delete waits for the cursor and takes nothing before it
        deleteBetween(c, LOCK_CURSOR, c.group(), ADD_FIGURES, c.name());
    }

    /**
     * The ack's steps in the order Citus runs them (its figures first, then the cursor): the delete,
     * holding the cursor and waiting for the figures, and the ack, waiting for the cursor, deadlock;
     * PostgreSQL aborts the one that waited longest, the delete, which runs again once the ack ended.
     */
    @Test
    void aDeleteThatADeadlockAbortsRunsAgain() throws Exception {
        Created c = pausedDestination();
        deleteBetween(c, ADD_FIGURES, c.name(), LOCK_CURSOR, c.group());
    }

    /**
     * Plays an ack's two steps on a connection of the test's own (each on one row: the destination's
     * one cursor, its figures) around a delete of the destination that waits between them, then
     * checks that the delete ended, finding the destination, and left nothing of it.
     */
    private void deleteBetween(Created c, String first, String firstParam, String second, String secondParam)
            throws Exception {
        SqlConnection ack = pool.getConnection().await().atMost(WAIT);
        try {
            int ackPid = ack.query("SELECT pg_backend_pid()").execute().await().atMost(WAIT).iterator().next().getInteger(0);
            ack.query("BEGIN").execute().await().atMost(WAIT);
            assertEquals(1, ack.preparedQuery(first).execute(Tuple.of(firstParam)).await().atMost(WAIT).rowCount(), first);

            CompletableFuture<Boolean> deleted = repository.delete(c.queue(), c.name(), c.group(), false).subscribeAsCompletionStage();
            awaitBlockedBy(ackPid);

            ack.preparedQuery(second).execute(Tuple.of(secondParam)).await().atMost(WAIT);
            ack.query("COMMIT").execute().await().atMost(WAIT);
            assertTrue(deleted.get(30, TimeUnit.SECONDS), "the delete found the destination and ended");
        } finally {
            ack.close().await().atMost(WAIT);
        }
        assertEquals(0, rowsLeft(c.name(), c.group()), "nothing of the destination is left");
    }

    /** A destination's queue, name and consumer group. */
    private record Created(String queue, String name, String group) {
    }

    /**
     * A destination of a fresh queue holding one message in partition "p" (so the destination has
     * that partition's cursor), paused: its dispatcher sends nothing, and the test's ack is the only
     * other transaction on its rows.
     */
    private static Created pausedDestination() {
        String queue = fresh("dellock");
        String name = fresh("d");
        push(queue, "p", "t1", "{\"n\":1}");
        api().body("{\"url\":\"http://127.0.0.2:9/hook\"}").put("/api/v1/queues/" + queue + "/destinations/" + name)
                .then().statusCode(201);
        pause(queue, name);
        return new Created(queue, name, Destination.GROUP_PREFIX + name);
    }

    /** The destination's rows left: its definition, its figures and its cursors. */
    private long rowsLeft(String name, String group) {
        return pool.preparedQuery("SELECT (SELECT count(*) FROM exactly.destinations WHERE name = $1) "
                        + "+ (SELECT count(*) FROM exactly.destination_state WHERE name = $1) "
                        + "+ (SELECT count(*) FROM exactly.consumer_cursors WHERE consumer_group = $2)")
                .execute(Tuple.of(name, group)).await().atMost(WAIT).iterator().next().getLong(0);
    }

    /** Waits until another backend (the delete's) waits for a lock that backend {@code pid} holds. */
    private void awaitBlockedBy(int pid) throws InterruptedException {
        long end = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < end) {
            long waiting = pool.preparedQuery("SELECT count(*) FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))")
                    .execute(Tuple.of(pid)).await().atMost(WAIT).iterator().next().getLong(0);
            if (waiting > 0) {
                return;
            }
            Thread.sleep(10);
        }
        fail("the delete never waited for the ack's cursor");
    }
}
