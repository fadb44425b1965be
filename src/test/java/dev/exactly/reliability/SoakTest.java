package dev.exactly.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.Api;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.vertx.mutiny.core.Vertx;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Soak: mixed traffic with injected faults, then an audit of the database against the clients'
 * ledger. 22 s of traffic by default (CI, under 30 s with the audit); {@code -Dreliability.soak.seconds=600} for ten minutes.
 *
 * <p>Traffic: producers pushing through the service's HTTP API and through a fleet of engine
 * instances (each with its own pool, behind a {@link FaultProxy}), over shared, overlapping
 * transactionIds in two queues of three partitions; consumers popping and acking them
 * ({@link HttpPopAck}); task producers and workers ({@link HttpTasks}); queue reconfiguration;
 * read-backs of answered messages. Faults, in turn: pg_terminate_backend of every session, a fast restart
 * and a crash (immediate stop) of PostgreSQL, one partition's row lock held past lock_timeout,
 * an engine instance discarded mid-flight, every proxied connection cut. Every client retries
 * the same request until it is answered.
 *
 * <p>New traffic plugs in as a {@link SoakOperation} in {@link #traffic}; its
 * {@link SoakOperation#audit} findings count in lost and duplicated.
 */
@QuarkusTest
@TestProfile(RestartablePostgresProfile.class)
class SoakTest {

    private static final String[] QUEUES = {"soak-a", "soak-b"};
    private static final String[] PARTITIONS = {"p0", "p1", "p2"};
    private static final int WINDOW_SECONDS = 86_400;

    @TestHTTPResource("/")
    URL base;

    private final RestartablePostgres pg = RestartablePostgres.shared();
    private final HttpClient http = HttpClient.newHttpClient();

    private List<Soak.Traffic> traffic(URI uri, PushTraffic pushes, EngineInstances fleet, long giveUpAt) {
        List<Soak.Traffic> t = new ArrayList<>();
        t.add(new Soak.Traffic(new HttpPush(http, uri, Api.TEST_API_KEY, pushes, giveUpAt, 250), 4));
        t.add(new Soak.Traffic(new EnginePush(fleet, pushes, giveUpAt), 4));
        t.add(new Soak.Traffic(new HttpConfigure(http, uri, Api.TEST_API_KEY, List.of(QUEUES), WINDOW_SECONDS, giveUpAt), 1));
        t.add(new Soak.Traffic(new HttpReadBack(http, uri, Api.TEST_API_KEY, pushes.ledger(), giveUpAt), 1));
        SoakHttp client = new SoakHttp(http, uri, Api.TEST_API_KEY, giveUpAt);
        t.add(new Soak.Traffic(new HttpPopAck(client, List.of(QUEUES)), 2));
        HttpTasks tasks = new HttpTasks(client, "soak-tasks");
        t.add(new Soak.Traffic(tasks.producer(), 2));
        t.add(new Soak.Traffic(tasks.worker(), 1));
        return t;
    }

    private List<Fault> faults(FaultProxy proxy, EngineInstances fleet, Random rnd) {
        String db = RestartablePostgresProfile.DATABASE;
        return List.of(
                new Fault("pg_terminate_backend", () -> pg.terminateBackends(db)),
                new Fault("partition lock held past lock_timeout", () -> holdPartition(db, QUEUES[rnd.nextInt(QUEUES.length)],
                        PARTITIONS[rnd.nextInt(PARTITIONS.length)], RestartablePostgresProfile.LOCK_TIMEOUT_MS + 500)),
                new Fault("engine instance discarded", () -> fleet.discardOne(rnd)),
                new Fault("database restarted", () -> {
                    pg.stop();
                    Thread.sleep(300 + rnd.nextInt(700));
                    pg.start();
                }),
                new Fault("connections cut", proxy::cutAll),
                new Fault("database crashed", () -> {
                    pg.crash();
                    Thread.sleep(300 + rnd.nextInt(700));
                    pg.start();
                }));
    }

    private void holdPartition(String db, String queue, String partition, long ms) throws Exception {
        try (Connection c = pg.connect(db); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("SELECT 1 FROM exactly.partitions p JOIN exactly.queues q ON q.id = p.queue_id "
                    + "WHERE q.name = '" + queue + "' AND p.name = '" + partition + "' FOR UPDATE OF p");
            Thread.sleep(ms);
            c.rollback();
        }
    }

    @Test
    void mixedTrafficWithFaultsLosesNothingAndDoublesNothing() throws Exception {
        int seconds = Integer.getInteger("reliability.soak.seconds", 22);
        long seed = Long.getLong("reliability.soak.seed", System.nanoTime());
        URI uri = URI.create(base.toString());
        for (String q : QUEUES) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri.resolve("/api/v1/configure"))
                    .header("Content-Type", "application/json").header("Authorization", "Bearer " + Api.TEST_API_KEY)
                    .POST(HttpRequest.BodyPublishers.ofString("{\"queue\":\"" + q + "\",\"options\":{\"dedupWindowSeconds\":"
                            + WINDOW_SECONDS + "}}")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode(), r.body());
        }
        PushLedger ledger = new PushLedger();
        PushTraffic pushes = new PushTraffic(QUEUES, PARTITIONS, ledger);
        long giveUpAt = System.currentTimeMillis() + seconds * 1000L + 180_000;
        Vertx vertx = Vertx.vertx();
        SoakStats stats;
        List<Soak.Traffic> traffic;
        try (FaultProxy proxy = new FaultProxy(pg.port());
             EngineInstances fleet = new EngineInstances(vertx, 3, proxy.port(), RestartablePostgresProfile.DATABASE, 5000,
                     RestartablePostgresProfile.LOCK_TIMEOUT_MS)) {
            // initialise Mutiny's context propagation once, before many client threads race to do it
            fleet.pick(new Random()).pool().query("SELECT 1").executeAndAwait();
            traffic = traffic(uri, pushes, fleet, giveUpAt);
            stats = Soak.run(seconds * 1000L, traffic, faults(proxy, fleet, new Random(seed)), 1000, pg::start, seed);
        } finally {
            vertx.closeAndAwait();
        }
        for (Soak.Traffic t : traffic) {
            t.operation().audit(stats);
        }
        PushLedger.Audit audit;
        try (Connection c = pg.connect(RestartablePostgresProfile.DATABASE)) {
            audit = ledger.audit(c, List.of(QUEUES));
        }
        long lost = audit.lost() + stats.extraLost();
        long duplicated = audit.duplicated() + stats.extraDuplicated();
        System.out.println("[soak] " + seconds + " s, seed " + seed + "\n[soak] " + stats.report().replace("\n", "\n[soak] ")
                + "\n[soak] push audit: " + audit.line() + "\n[soak] LOST " + lost + ", DUPLICATED " + duplicated);
        assertEquals(0, stats.errors(), stats.firstErrors());
        assertTrue(stats.faults() > 0, "no fault was injected");
        assertTrue(audit.answered() > 0, "no push was answered");
        assertEquals(0, lost, "lost");
        assertEquals(0, duplicated, "duplicated");
        assertEquals(0, audit.inconsistent(), "inconsistent answers");
        assertEquals(0, audit.phantom(), "stored ids no client sent");
        assertEquals(0, audit.unanswered(), "ids never answered");
    }
}
