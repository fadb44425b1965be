package dev.exactly.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.exactly.testing.TestDatabase;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.sqlclient.Pool;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A push that the database aborts to resolve a conflict (40P01 deadlock_detected) wrote nothing,
 * and {@link PushRepository} runs it again: its items are answered and stored once. On one
 * PostgreSQL a push on its own never takes part in a deadlock with another push, but it can with a
 * caller's transaction that holds a partition row and then creates a partition the push created
 * and has not committed yet; on Citus the distributed deadlock detection also cancels pushes
 * where no deadlock exists ({@link PushEngineConcurrencyCitusTest}).
 */
class PushConflictRetryTest {

    private static Vertx vertx;
    private static Pool pool;
    private static String db;

    @BeforeAll
    static void start() {
        vertx = Vertx.vertx();
        db = TestDatabase.createMigratedDatabase();
        pool = TestDatabase.pool(vertx, db, 4);
    }

    @AfterAll
    static void stop() {
        pool.closeAndAwait();
        vertx.closeAndAwait();
    }

    private static Connection connect() throws SQLException {
        return DriverManager.getConnection(TestDatabase.jdbcUrl(db), "postgres", "");
    }

    /**
     * A transaction holds partition p's row. A bundle over p and a new partition n creates n (its
     * name row uncommitted) and waits for p. The transaction then creates n too and waits for the
     * bundle's name row: a deadlock, which PostgreSQL resolves by aborting the bundle, whose wait
     * began first. The bundle runs again (after the transaction commits, it finds n created and
     * p free) and both its items are stored once, under the ids it answered.
     */
    @Test
    void aPushAbortedByADeadlockRunsAgainAndIsStoredOnce() throws Exception {
        PushEngine engine = new PushEngine(new PushRepository(pool), DedupCache.DISABLED);
        engine.push(List.of(item("p", "t-0"))).await().atMost(Duration.ofSeconds(30));
        CompletableFuture<List<PushVerdict>> bundle;
        try (Connection tx = connect(); Connection watch = connect();
             Statement ts = tx.createStatement(); Statement ws = watch.createStatement()) {
            tx.setAutoCommit(false);
            ts.executeQuery("SELECT 1 FROM exactly.partitions WHERE id = exactly.partition_id('conflict', 'p') "
                    + "FOR UPDATE").close();
            bundle = engine.push(List.of(item("p", "b-1"), item("n", "b-2"))).subscribeAsCompletionStage();
            awaitLockWaiters(ws, 1);
            // the bundle's wait began first: PostgreSQL's deadlock check aborts it, and this goes on
            ts.executeQuery("SELECT exactly.ensure_partitions(ARRAY['conflict'], ARRAY['n'])").close();
            tx.commit();
        }
        Map<String, UUID> answered = new HashMap<>();
        for (PushVerdict v : bundle.get(60, TimeUnit.SECONDS)) {
            assertEquals(PushStatus.QUEUED, v.status(), v.toString());
            answered.put(v.partition() + "/" + v.transactionId(), v.messageId());
        }
        assertEquals(2, answered.size(), answered.toString());
        Map<String, UUID> stored = new HashMap<>();
        try (Connection c = connect(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT p.name || '/' || m.transaction_id, m.message_id FROM exactly.messages m "
                     + "JOIN exactly.partitions p ON p.id = m.partition_id JOIN exactly.queues q ON q.id = p.queue_id "
                     + "WHERE q.name = 'conflict' AND m.transaction_id <> 't-0'")) {
            while (rs.next()) {
                assertEquals(null, stored.put(rs.getString(1), rs.getObject(2, UUID.class)), "stored twice");
            }
        }
        assertEquals(answered, stored);
    }

    private static PushCommand item(String partition, String txn) {
        return PushCommand.json("conflict", partition, txn, "{}".getBytes(StandardCharsets.UTF_8), null);
    }

    /** Waits until n backends of the database {@code st} is connected to wait for a lock. */
    static void awaitLockWaiters(Statement st, int n) throws Exception {
        for (int i = 0; i < 300; i++) {
            try (ResultSet rs = st.executeQuery("SELECT count(*) FROM pg_stat_activity "
                    + "WHERE datname = current_database() AND wait_event_type = 'Lock'")) {
                rs.next();
                if (rs.getInt(1) >= n) {
                    return;
                }
            }
            Thread.sleep(50);
        }
        fail(n + " lock waiters expected");
    }
}
