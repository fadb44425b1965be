package dev.exactly.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.TestDatabase;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.sqlclient.Pool;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A spreadPartitions change racing the first push to a queue that does not exist yet
 * (QueueRepository.write): the push creates the queue and its Default partition and stores a key,
 * not yet committed, when the change starts. The change must wait for it and then refuse (the
 * Default partition holds a hash), not overwrite the queue's options and leave its keys where a
 * spread probe never looks (found by a new-user check: every key of such a queue was then stored
 * twice, once in Default and once in its spread partition).
 */
class SpreadChangeRaceTest {

    private static Vertx vertx;
    private static Pool pool;
    private static String db;

    @BeforeAll
    static void start() {
        vertx = Vertx.vertx();
        db = TestDatabase.createMigratedDatabase();
        pool = TestDatabase.pool(vertx, db, 2);
    }

    @AfterAll
    static void stop() {
        pool.closeAndAwait();
        vertx.closeAndAwait();
    }

    private static long number(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void aChangeRacingTheFirstPushToANewQueueWaitsForItAndIsRefused() throws Exception {
        try (Connection push = DriverManager.getConnection(TestDatabase.jdbcUrl(db), "postgres", "");
             Connection look = DriverManager.getConnection(TestDatabase.jdbcUrl(db), "postgres", "")) {
            push.setAutoCommit(false);
            try (Statement s = push.createStatement()) {
                // a first push by name, as PushRepository sends it: creates the queue and Default
                s.execute("SELECT * FROM exactly.push_bundle(ARRAY['race-new'], ARRAY['Default'], ARRAY[-1]::bigint[], "
                        + "ARRAY[1], ARRAY[decode(md5('k0'), 'hex')], ARRAY[true], ARRAY[gen_random_uuid()], ARRAY['k0'], "
                        + "ARRAY['\\x7b7d'::bytea], ARRAY[NULL]::text[], ARRAY[NULL]::text[], ARRAY[NULL]::text[], NULL, "
                        + "ARRAY[0])");
            }
            CompletableFuture<QueueRepository.Change> change = new QueueRepository(pool)
                    .write("race-new", Map.of(QueueOption.SPREAD_PARTITIONS, 16), false)
                    .subscribeAsCompletionStage();
            // the change waits for the push's uncommitted queue row
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (number(look, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                    + "AND wait_event_type = 'Lock' AND query LIKE '%exactly.queues%'") == 0) {
                assertFalse(change.isDone(), "the change did not wait for the push: " + change);
                assertTrue(System.nanoTime() < deadline, "the change never waited");
                Thread.sleep(20);
            }
            push.commit();
            ExecutionException failed = assertThrows(ExecutionException.class, () -> change.get(30, TimeUnit.SECONDS));
            assertInstanceOf(QueueRepository.SpreadChangeRefused.class, failed.getCause());
            assertEquals(0, number(look, "SELECT spread_partitions FROM exactly.queues WHERE name = 'race-new'"));
            assertEquals(1, number(look, "SELECT count(*) FROM exactly.messages"));
        }
    }

    @Test
    void aChangeThatCreatesTheQueueIsNotCheckedAgainstPartitionsItCannotHave() throws Exception {
        QueueRepository.Change c = new QueueRepository(pool)
                .write("race-fresh", Map.of(QueueOption.SPREAD_PARTITIONS, 8), false).await().indefinitely();
        assertEquals(null, c.before(), "created by this change");
        assertEquals(8, c.after().options().get(QueueOption.SPREAD_PARTITIONS));
    }
}
