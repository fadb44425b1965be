package dev.exactly.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.engine.DirectWriter;
import dev.exactly.engine.PushCommand;
import dev.exactly.engine.PushEngine;
import dev.exactly.engine.PushRepository;
import dev.exactly.engine.PushVerdict;
import dev.exactly.engine.cache.Ticker;
import dev.exactly.engine.cache.TxnHashRepository;
import dev.exactly.engine.cache.WarmDedupCache;
import dev.exactly.engine.fusion.FusingWriter;
import dev.exactly.engine.fusion.FusionSettings;
import dev.exactly.engine.fusion.ScheduledLingerTimer;
import dev.exactly.testing.CacheDefaults;
import io.vertx.mutiny.core.Vertx;
import java.time.Duration;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A push commits before its WAL flush and is answered after {@code exactly.flush_wal()}
 * (sql/R__push.sql, "Commit before the WAL flush"). This test crashes PostgreSQL (an immediate
 * stop: what its WAL buffers held and no WAL writer wrote out is gone) again and again while
 * stateless engine instances and a server-mode engine (fusion, whose flush hands its partition on
 * when settled and answers when durable, and a warm cache, which learns only durable rows) push
 * overlapping transactionIds into two hot partitions, then checks
 * every answer against what the database kept after recovery: no answered id is missing, none is
 * stored twice, every answer's message id is the one stored (a duplicate's answer included, whose
 * original another instance may have committed a moment before), and every partition's offsets
 * are still dense, from 0 to its watermark.
 *
 * <p>On a server with synchronous_commit on ({@link RestartablePostgres}), the only one where an
 * answer promises durability.
 */
class CommitBeforeFlushCrashTest {

    private static final String DATABASE = "commit_before_flush";
    private static final String[] QUEUES = {"early"};
    private static final String[] PARTITIONS = {"p0", "p1"};

    private final RestartablePostgres pg = RestartablePostgres.shared();

    @Test
    void crashesLoseNoAnsweredPushAndLeaveOffsetsDense() throws Exception {
        pg.start();
        pg.createMigratedDatabase(DATABASE);
        PushLedger ledger = new PushLedger();
        PushTraffic traffic = new PushTraffic(QUEUES, PARTITIONS, ledger);
        SoakStats stats = new SoakStats();
        long seconds = Long.getLong("reliability.early.seconds", 12);
        long end = System.currentTimeMillis() + seconds * 1000;
        long giveUpAt = end + 120_000;
        Vertx vertx = Vertx.vertx();
        int crashes = 0;
        ScheduledLingerTimer linger = new ScheduledLingerTimer();
        try (EngineInstances fleet = new EngineInstances(vertx, 3, pg.port(), DATABASE, 5000, 3000);
             EngineInstance serverPool = new EngineInstance(vertx, pg.port(), DATABASE, 4, "exactly-server", 5000, 3000)) {
            fleet.pick(new Random()).pool().query("SELECT 1").executeAndAwait();
            PushRepository serverStore = new PushRepository(serverPool.pool());
            WarmDedupCache cache = new WarmDedupCache(new TxnHashRepository(serverPool.pool()), CacheDefaults.settings(64),
                    Ticker.SYSTEM);
            PushEngine server = new PushEngine(new FusingWriter(new DirectWriter(serverStore, cache),
                    FusionSettings.of(Duration.ofMillis(1), 1000, 8 << 20, 1), linger), serverStore);
            EnginePush push = new EnginePush(fleet, traffic, giveUpAt);
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> clients = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                Random rnd = new Random(i);
                boolean toServer = i % 2 == 1;
                Thread t = new Thread(() -> {
                    while (!stop.get()) {
                        try {
                            if (toServer) {
                                pushTo(server, traffic, rnd, stats, giveUpAt);
                            } else {
                                push.run(rnd, stats);
                            }
                        } catch (Exception e) {
                            stats.error("push: " + e);
                        }
                    }
                }, "early-push-" + i);
                t.start();
                clients.add(t);
            }
            Random rnd = new Random(42);
            // at least three crashes, however slowly a loaded machine restarts the database (within 90 s)
            long latest = end + 90_000;
            while ((System.currentTimeMillis() < end || crashes < 3) && System.currentTimeMillis() < latest) {
                Thread.sleep(800 + rnd.nextInt(1200));
                pg.crash();
                crashes++;
                Thread.sleep(200 + rnd.nextInt(400));
                pg.start();
            }
            stop.set(true);
            for (Thread t : clients) {
                t.join(150_000);
            }
        } finally {
            pg.start();
            linger.close();
            vertx.closeAndAwait();
        }
        PushLedger.Audit audit;
        try (Connection c = pg.connect(DATABASE)) {
            audit = ledger.audit(c, List.of(QUEUES));
            try (Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT p.name, p.last_offset, count(m.*), min(m.\"offset\"), max(m.\"offset\") "
                         + "FROM exactly.partitions p LEFT JOIN exactly.messages m ON m.partition_id = p.id "
                         + "GROUP BY p.name, p.last_offset")) {
                int partitions = 0;
                while (rs.next()) {
                    partitions++;
                    String name = rs.getString(1);
                    long last = rs.getLong(2);
                    long count = rs.getLong(3);
                    assertEquals(last + 1, count, name + ": messages stored against its watermark " + last);
                    if (count > 0) {
                        assertEquals(0, rs.getLong(4), name + ": lowest offset");
                        assertEquals(last, rs.getLong(5), name + ": highest offset");
                    }
                }
                assertEquals(PARTITIONS.length, partitions, "partitions");
            }
        }
        System.out.println("[commit-before-flush] " + crashes + " crashes; " + stats.report().replace("\n", "; ")
                + "; audit: " + audit.line());
        assertEquals(0, stats.errors(), stats.firstErrors());
        assertTrue(crashes >= 3, "crashes: " + crashes);
        assertTrue(audit.answered() > 500, "answered: " + audit.line());
        assertEquals(0, audit.lost(), "lost: " + audit.line());
        assertEquals(0, audit.duplicated(), "duplicated: " + audit.line());
        assertEquals(0, audit.inconsistent(), "inconsistent: " + audit.line());
    }

    /** One request to the server-mode engine, sent again after a transient failure until answered. */
    private static void pushTo(PushEngine server, PushTraffic traffic, Random rnd, SoakStats stats, long giveUpAt)
            throws InterruptedException {
        List<PushCommand> items = traffic.next(rnd, "server");
        traffic.attempted(items);
        while (true) {
            try {
                List<PushVerdict> verdicts = server.push(items).await().atMost(Duration.ofSeconds(90));
                EnginePush.record(traffic.ledger(), items, verdicts);
                stats.operation("push-server");
                return;
            } catch (RuntimeException e) {
                String kind = EnginePush.transientKind(e, null);
                if (kind == null) {
                    throw e;
                }
                stats.transientFailure(kind);
                if (System.currentTimeMillis() > giveUpAt) {
                    stats.error("push-server: gave up after transient failures, the last: " + e);
                    return;
                }
                Thread.sleep(20 + rnd.nextInt(100));
            }
        }
    }
}
