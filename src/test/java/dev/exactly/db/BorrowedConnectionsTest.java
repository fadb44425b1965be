package dev.exactly.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.TestDatabase;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A borrowed connection whose backend is killed under it fails its operation without the
 * reactive client printing a stack trace to System.err, against a real PostgreSQL: the backend
 * is ended with pg_terminate_backend (what a database restart does to every backend), from the
 * connection itself or from a second one while the borrowed connection sits idle.
 */
class BorrowedConnectionsTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    /** Time for an asynchronous print after the failure to land in the captured stream. */
    private static final long SETTLE_MILLIS = 1000;

    private Vertx vertx;
    private Pool pool;
    private Pool admin;
    private String table;

    @BeforeEach
    void start() {
        String database = TestDatabase.createDatabase();
        vertx = Vertx.vertx();
        pool = TestDatabase.pool(vertx, database, 2);
        admin = TestDatabase.pool(vertx, database, 1);
        table = "borrowed_" + UUID.randomUUID().toString().replace("-", "");
        admin.query("CREATE TABLE " + table + " (id int PRIMARY KEY)").execute().await().atMost(WAIT);
    }

    @AfterEach
    void stop() {
        try {
            admin.query("DROP TABLE IF EXISTS " + table).execute().await().atMost(WAIT);
        } finally {
            pool.closeAndAwait();
            admin.closeAndAwait();
            vertx.closeAndAwait();
        }
    }

    @Test
    void plainPoolPrintsTheStackTraceWhenTheBackendIsKilled() throws Exception {
        // the problem this class exists for: without an exception handler the client prints
        String err = stderrOf(() -> pool.withConnection(this::killedWhileIdle));
        assertTrue(err.contains("terminating connection due to administrator command"), "printed: " + err);
    }

    @Test
    void connectionKilledWhileIdlePrintsNothing() throws Exception {
        assertEquals("", stderrOf(() -> BorrowedConnections.withConnection(pool, this::killedWhileIdle)));
    }

    @Test
    void connectionKilledByItsOwnStatementPrintsNothing() throws Exception {
        assertEquals("", stderrOf(() -> BorrowedConnections.withConnection(pool, BorrowedConnectionsTest::killsItself)));
    }

    @Test
    void transactionKilledPrintsNothing() throws Exception {
        assertEquals("", stderrOf(() -> BorrowedConnections.withTransaction(pool, this::killedWhileIdle)));
        assertEquals("", stderrOf(() -> BorrowedConnections.withTransaction(pool, BorrowedConnectionsTest::killsItself)));
    }

    @Test
    void transactionCommitsOnSuccessAndRollsBackOnFailure() {
        int inserted = BorrowedConnections.withTransaction(pool, conn -> conn
                .query("INSERT INTO " + table + " VALUES (1)").execute().map(rows -> rows.rowCount()))
                .await().atMost(WAIT);
        assertEquals(1, inserted);
        assertEquals(1, count(1), "committed: another connection sees the row");

        IllegalStateException refused = new IllegalStateException("the work failed");
        Throwable t = assertThrows(Throwable.class, () -> BorrowedConnections.withTransaction(pool, conn -> conn
                .query("INSERT INTO " + table + " VALUES (2)").execute()
                .flatMap(rows -> Uni.createFrom().<Integer>failure(refused)))
                .await().atMost(WAIT));
        assertEquals(refused, t, "the Uni fails as the work's Uni failed");
        assertEquals(0, count(2), "rolled back");

        assertEquals(7, BorrowedConnections.withConnection(pool, conn -> conn.query("SELECT 7").execute()
                .map(rows -> rows.iterator().next().getInteger(0))).await().atMost(WAIT));
    }

    /** Ends the connection's backend from a second connection, then uses the connection. */
    private Uni<Object> killedWhileIdle(SqlConnection conn) {
        return conn.query("SELECT pg_backend_pid()").execute()
                .flatMap(rows -> admin.query("SELECT pg_terminate_backend(" + rows.iterator().next().getInteger(0) + ")")
                        .execute())
                .onItem().delayIt().by(Duration.ofMillis(300))
                .flatMap(killed -> conn.query("SELECT 1").execute())
                .map(rows -> rows);
    }

    /** Ends the connection's own backend with its first statement. */
    private static Uni<Object> killsItself(SqlConnection conn) {
        return conn.query("SELECT pg_terminate_backend(pg_backend_pid())").execute().map(rows -> rows);
    }

    private long count(int id) {
        return admin.query("SELECT count(*) FROM " + table + " WHERE id = " + id).execute().await().atMost(WAIT)
                .iterator().next().getLong(0);
    }

    /**
     * Runs the operation, which must fail, with System.err captured until a moment after the
     * failure.
     *
     * @return what was written to System.err meanwhile
     */
    private static String stderrOf(java.util.function.Supplier<Uni<?>> operation) throws InterruptedException {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            assertThrows(Throwable.class, () -> operation.get().await().atMost(WAIT), "the operation fails");
            Thread.sleep(SETTLE_MILLIS);
        } finally {
            System.setErr(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
