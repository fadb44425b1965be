package dev.exactly.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.engine.DedupCache;
import dev.exactly.engine.PushCommand;
import dev.exactly.engine.PushEngine;
import dev.exactly.engine.PushStatus;
import dev.exactly.engine.PushRepository;
import dev.exactly.engine.PushVerdict;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.PoolOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The embedded PostgreSQL is watched, so that a crash of it does not leave the service answering
 * 503 for good. Killed (SIGKILL to its postmaster, the one this test started), it is restarted on
 * the same port, pushes through the service's pool are answered again with the data intact, and
 * the health check tells running from restarting from failed; when it cannot come back, the watch
 * gives up after its bounded attempts.
 */
class PostmasterWatchTest {

    private final Path dir = Path.of("target", "watch-" + UUID.randomUUID(), "pgdata").toAbsolutePath();
    private EmbeddedDatabase db;
    private PostmasterWatch watch;
    private Vertx vertx;
    private Pool pool;

    @Test
    void aKilledPostgresIsRestartedAndPushesAreAnsweredAgain() throws Exception {
        db = EmbeddedDatabase.start(dir, 0);
        migrate();
        watch = new PostmasterWatch(db, 5, Duration.ofMillis(500), Duration.ofMillis(200), () -> { }).start();
        PushEngine engine = engine();
        assertEquals(PushStatus.QUEUED, pushOnce(engine, "before-crash").status());
        assertEquals("running", state(new EmbeddedDatabaseHealth().call()));

        long killed = db.pid();
        kill(killed);
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (watch.status().restarts() < 1 && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        PostmasterWatch.Status s = watch.status();
        assertEquals(1, s.restarts(), "restarted once: " + s);
        // the first attempt succeeded: only the exit is on record, no failed attempt (a dead
        // postmaster not yet reaped used to make pg_ctl wait for it to shut down, and fail)
        assertEquals("PostgreSQL PID " + killed + " exited", s.lastFailure(), "first attempt: " + s);
        assertEquals(PostmasterWatch.State.RUNNING, s.state());
        assertNotEquals(killed, db.pid());
        assertTrue(db.isRunning());

        // the pool reconnects by itself; the data survived the crash
        assertEquals(PushStatus.DUPLICATE, pushUntilAnswered(engine, "before-crash").status());
        assertEquals(PushStatus.QUEUED, pushUntilAnswered(engine, "after-crash").status());
        HealthCheckResponse health = new EmbeddedDatabaseHealth().call();
        assertEquals(HealthCheckResponse.Status.UP, health.getStatus());
        assertEquals(1L, health.getData().orElseThrow().get("restarts"));
    }

    @Test
    void aPostgresThatCannotComeBackStopsTheServiceAfterBoundedAttempts() throws Exception {
        db = EmbeddedDatabase.start(dir, 0);
        AtomicInteger gaveUp = new AtomicInteger();
        watch = new PostmasterWatch(db, 2, Duration.ofMillis(100), Duration.ofMillis(200), gaveUp::incrementAndGet).start();
        // a data directory PostgreSQL cannot start on any more
        Files.move(dir.resolve("global/pg_control"), dir.resolve("global/pg_control.aside"));
        kill(db.pid());
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (gaveUp.get() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertEquals(1, gaveUp.get(), "gave up once: " + watch.status());
        PostmasterWatch.Status s = watch.status();
        assertEquals(PostmasterWatch.State.FAILED, s.state());
        assertEquals(2, s.attempt());
        HealthCheckResponse health = new EmbeddedDatabaseHealth().call();
        assertEquals(HealthCheckResponse.Status.DOWN, health.getStatus());
        assertEquals("failed", state(health));
        Thread.sleep(600);
        assertEquals(1, gaveUp.get(), "no further attempts after giving up");
        Files.move(dir.resolve("global/pg_control.aside"), dir.resolve("global/pg_control"));
    }

    /**
     * Once reaped, a dead postmaster's PID may go to any process, and postmaster.pid still names
     * it. A restart must not take that process for the server nor signal it ({@code pg_ctl
     * restart} sent it SIGINT and then waited 60 s for it to remove postmaster.pid).
     */
    @Test
    void aRestartSignalsNoProcessThatMerelyHasTheDeadPostmastersPid() throws Exception {
        db = EmbeddedDatabase.start(dir, 0);
        long killed = db.pid();
        kill(killed);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (db.isRunning() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertFalse(db.isRunning(), "PID " + killed + " was killed");
        Process stranger = new ProcessBuilder("sleep", "300").start();
        try {
            Path pidFile = dir.resolve("postmaster.pid");
            List<String> lines = new ArrayList<>(Files.readAllLines(pidFile));
            lines.set(0, Long.toString(stranger.pid()));
            Files.write(pidFile, lines);
            assertFalse(EmbeddedDatabase.isPostmasterOf(stranger.pid(), dir), "a sleep is no postmaster");

            // the killed postmaster's backends may still hold its shared memory for a moment, and
            // PostgreSQL refuses to start until they are gone (the watch retries the same way)
            for (int attempt = 1; ; attempt++) {
                try {
                    db.restart();
                    break;
                } catch (java.io.IOException stillAttached) {
                    if (attempt == 5) {
                        throw stillAttached;
                    }
                    Thread.sleep(1000);
                }
            }

            assertTrue(stranger.isAlive(), "the process holding the old PID was not signalled");
            assertNotEquals(stranger.pid(), db.pid());
            assertTrue(db.isRunning());
            assertTrue(EmbeddedDatabase.isPostmasterOf(db.pid(), dir));
            // the data directory is named once on the restarted server's command line (pg_ctl
            // adds its own -D; the recorded options' one came on top of it)
            List<String> argv = List.of(Files.readString(Path.of("/proc", Long.toString(db.pid()), "cmdline"),
                    StandardCharsets.UTF_8).split("\0"));
            assertEquals(1, argv.stream().filter("-D"::equals).count(), "command line: " + argv);
            assertEquals(dir.toString(), argv.get(argv.indexOf("-D") + 1));
            try (Connection c = DriverManager.getConnection("jdbc:" + db.url(), "postgres", "");
                 ResultSet r = c.createStatement().executeQuery("SELECT current_setting('listen_addresses'),"
                         + " current_setting('fsync')")) {
                assertTrue(r.next());
                // restarted with the options of the first start
                assertEquals("127.0.0.1", r.getString(1));
                assertEquals("on", r.getString(2));
            }
        } finally {
            stranger.destroyForcibly().waitFor();
        }
    }

    private static String state(HealthCheckResponse r) {
        return String.valueOf(r.getData().orElseThrow().get("state"));
    }

    /** SIGKILL to the postmaster this test started, as a crash or the OOM killer would. */
    private static void kill(long pid) throws Exception {
        assertEquals(0, new ProcessBuilder("kill", "-KILL", Long.toString(pid)).start().waitFor());
    }

    private void migrate() {
        org.flywaydb.core.Flyway.configure().dataSource("jdbc:" + db.url(), "postgres", "")
                .schemas("exactly").defaultSchema("exactly").createSchemas(true)
                .locations("filesystem:sql").load().migrate();
    }

    private PushEngine engine() {
        vertx = Vertx.vertx();
        PgConnectOptions connect = PgConnectOptions.fromUri(db.url()).setUser("postgres");
        pool = Pool.newInstance(PgBuilder.pool().with(new PoolOptions().setMaxSize(2))
                .connectingTo(connect).using(vertx.getDelegate()).build());
        return new PushEngine(new PushRepository(pool), DedupCache.DISABLED);
    }

    private static PushVerdict pushOnce(PushEngine engine, String transactionId) {
        List<PushVerdict> v = engine.push(List.of(PushCommand.json("watched", "Default", transactionId,
                "{}".getBytes(StandardCharsets.UTF_8), null))).await().atMost(Duration.ofSeconds(30));
        return v.get(0);
    }

    /** Retries while the pool still holds connections to the dead server (503 for a client). */
    private static PushVerdict pushUntilAnswered(PushEngine engine, String transactionId) throws InterruptedException {
        RuntimeException last = null;
        for (int i = 0; i < 100; i++) {
            try {
                return pushOnce(engine, transactionId);
            } catch (RuntimeException e) {
                last = e;
                Thread.sleep(200);
            }
        }
        throw last;
    }

    @AfterEach
    void stop() throws Exception {
        if (pool != null) {
            pool.closeAndAwait();
            vertx.closeAndAwait();
        }
        if (watch != null) {
            watch.close();
        }
        if (db != null) {
            long pid = db.pid();
            db.close();
            ProcessHandle.of(pid).filter(ProcessHandle::isAlive).ifPresent(h -> {
                try {
                    new ProcessBuilder("kill", "-QUIT", Long.toString(pid)).start().waitFor();
                } catch (Exception ignored) {
                    // best effort
                }
            });
        }
        try (Stream<Path> all = Files.walk(dir.getParent())) {
            for (Path f : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        }
    }
}
