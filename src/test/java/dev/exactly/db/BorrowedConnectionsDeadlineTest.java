package dev.exactly.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.TestDatabase;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.PoolOptions;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Database work done for a request ends by the request's deadline ({@link RequestDeadline},
 * {@link BorrowedConnections}), against a real PostgreSQL: a statement blocked on a row lock that
 * another session holds fails at the deadline with {@link DeadlineExceededException} and is
 * cancelled on the server (its backend stops waiting for the lock while the other session still
 * holds it); work that got no connection in time fails with {@link StoreUnavailableException} and
 * never runs, even when a connection turns up later; a server that accepts TCP connections and
 * answers nothing holds no one past the deadline; work without a deadline is not bounded.
 */
class BorrowedConnectionsDeadlineTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private Vertx vertx;
    private Pool pool;
    private String database;
    private String table;

    @BeforeEach
    void start() throws Exception {
        database = TestDatabase.createDatabase();
        vertx = Vertx.vertx();
        pool = TestDatabase.pool(vertx, database, 2);
        table = "deadline_" + UUID.randomUUID().toString().replace("-", "");
        try (Connection c = jdbc(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (id int PRIMARY KEY, n int)");
            s.execute("INSERT INTO " + table + " VALUES (1, 0)");
        }
    }

    @AfterEach
    void stop() {
        pool.closeAndAwait();
        vertx.closeAndAwait();
    }

    private Connection jdbc() throws Exception {
        return DriverManager.getConnection(TestDatabase.jdbcUrl(database), "postgres", "");
    }

    private static long in(long millis) {
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    }

    /** Sessions of the pool (application_name unset) waiting for a lock. */
    private long waitingForLocks(Connection c) throws Exception {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity "
                + "WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void aStatementBlockedOnARowLockIsCancelledAtTheDeadline() throws Exception {
        try (Connection holder = jdbc(); Connection observer = jdbc()) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.execute("SELECT 1 FROM " + table + " WHERE id = 1 FOR UPDATE");
            }
            long start = System.nanoTime();
            Uni<Integer> update = RequestDeadline.within(in(1500), () -> BorrowedConnections.withTransaction(pool,
                    conn -> conn.preparedQuery("UPDATE " + table + " SET n = n + 1 WHERE id = $1").execute(Tuple.of(1))
                            .map(rows -> rows.rowCount())));
            Throwable t = assertThrows(Throwable.class, () -> update.await().atMost(WAIT));
            long took = (System.nanoTime() - start) / 1_000_000;
            assertInstanceOf(DeadlineExceededException.class, t, t.toString());
            assertTrue(took >= 1000 && took < 1500, "failed after " + took + " ms, before the deadline less the reserve");

            // the backend stops waiting for the lock, which the holder still holds
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (waitingForLocks(observer) > 0 && System.nanoTime() < until) {
                Thread.sleep(50);
            }
            assertEquals(0, waitingForLocks(observer), "the abandoned statement still waits for the row lock");
            holder.rollback();
        }
        // nothing was written, and the pool's connections serve the next work
        assertEquals(0, (int) BorrowedConnections.execute(pool, RequestDeadline.NONE,
                "SELECT n FROM " + table + " WHERE id = $1", Tuple.of(1)).await().atMost(WAIT).iterator().next().getInteger(0));
        for (int i = 0; i < 4; i++) {
            int n = RequestDeadline.within(in(5000), () -> BorrowedConnections.withTransaction(pool,
                    conn -> conn.preparedQuery("UPDATE " + table + " SET n = n + 1 WHERE id = 1 RETURNING n").execute()
                            .map(rows -> rows.iterator().next().getInteger(0)))).await().atMost(WAIT);
            assertEquals(i + 1, n);
        }
    }

    @Test
    void workThatGotNoConnectionInTimeNeverRuns() throws Exception {
        Pool one = TestDatabase.pool(vertx, database, 1);
        try {
            // the only connection is busy for 2 s (no deadline)
            Uni<Object> busy = BorrowedConnections.withConnection(one, conn -> conn.query("SELECT pg_sleep(2)").execute()
                    .map(rows -> (Object) rows)).memoize().indefinitely();
            busy.subscribe().with(x -> { }, e -> { });
            Thread.sleep(200);
            long start = System.nanoTime();
            Uni<Integer> late = RequestDeadline.within(in(800), () -> BorrowedConnections.withConnection(one,
                    conn -> conn.preparedQuery("UPDATE " + table + " SET n = 100 WHERE id = $1").execute(Tuple.of(1))
                            .map(rows -> rows.rowCount())));
            Throwable t = assertThrows(Throwable.class, () -> late.await().atMost(WAIT));
            long took = (System.nanoTime() - start) / 1_000_000;
            assertTrue(t instanceof StoreUnavailableException && !(t instanceof StoreTimeoutException), t.toString());
            assertTrue(took < 800, "failed after " + took + " ms");
            busy.await().atMost(WAIT);
            Thread.sleep(500);
            assertEquals(0, (int) BorrowedConnections.execute(one, RequestDeadline.NONE,
                    "SELECT n FROM " + table + " WHERE id = $1", Tuple.of(1)).await().atMost(WAIT)
                    .iterator().next().getInteger(0), "the abandoned work ran once a connection was free");
        } finally {
            one.closeAndAwait();
        }
    }

    /** A server that accepts TCP connections and never answers (as a stopped PostgreSQL's port does). */
    @Test
    void aServerThatAnswersNothingHoldsNoOnePastTheDeadline() throws Exception {
        List<Socket> accepted = new ArrayList<>();
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        accepted.add(silent.accept());
                    }
                } catch (IOException closed) {
                    // the test is over
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            Pool mute = Pool.newInstance(PgBuilder.pool().with(new PoolOptions().setMaxSize(2))
                    .connectingTo(new PgConnectOptions().setHost("127.0.0.1").setPort(silent.getLocalPort())
                            .setUser("postgres").setDatabase("postgres"))
                    .using(vertx.getDelegate()).build());
            try {
                long start = System.nanoTime();
                Throwable t = assertThrows(Throwable.class, () -> RequestDeadline.within(in(1000),
                        () -> BorrowedConnections.query(mute, "SELECT 1")).await().atMost(WAIT));
                long took = (System.nanoTime() - start) / 1_000_000;
                assertInstanceOf(StoreUnavailableException.class, t, t.toString());
                assertTrue(took < 1000, "failed after " + took + " ms");
            } finally {
                mute.close();
            }
        } finally {
            for (Socket s : accepted) {
                s.close();
            }
        }
    }

    @Test
    void workWithoutADeadlineIsNotBounded() {
        long start = System.nanoTime();
        RequestDeadline.within(RequestDeadline.NONE, () -> BorrowedConnections.query(pool, "SELECT pg_sleep(1.2)"))
                .await().atMost(WAIT);
        assertTrue((System.nanoTime() - start) / 1_000_000 >= 1200);
        assertEquals(RequestDeadline.NONE, RequestDeadline.current(), "outside a request and a scope: no deadline");
    }
}
