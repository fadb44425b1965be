package dev.exactly.destination;

import static dev.exactly.destination.DestinationFixtures.await;
import static dev.exactly.destination.DestinationFixtures.create;
import static dev.exactly.destination.DestinationFixtures.delete;
import static dev.exactly.destination.DestinationFixtures.fresh;
import static dev.exactly.destination.DestinationFixtures.pause;
import static dev.exactly.destination.DestinationFixtures.push;
import static dev.exactly.destination.DestinationFixtures.receiverUrl;
import static dev.exactly.destination.DestinationFixtures.resume;
import static dev.exactly.destination.DestinationFixtures.startReceiver;
import static dev.exactly.destination.DestinationFixtures.stopReceiver;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.exactly.reliability.RestartablePostgres;
import dev.exactly.testing.LogCapture;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import org.jboss.logmanager.ExtLogRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A PostgreSQL crash in the middle of a destination's deliveries, whose pops and acks commit
 * asynchronously ({@link RestartablePostgres}: synchronous_commit on, an immediate shutdown, crash
 * recovery at the start): every message a push had stored is delivered at least once afterwards,
 * and whatever arrives twice carries the same messageId (the receiver sees only the pushed ids);
 * a batch whose send ended while the database was down is acked once it is back, with a WARN when
 * its acks are first retried and an INFO when they went through.
 */
@QuarkusTest
@TestProfile(DestinationDatabaseCrashTest.OwnServer.class)
class DestinationDatabaseCrashTest {

    /** The application on a database of its own on {@link RestartablePostgres}. */
    public static class OwnServer implements QuarkusTestProfile {

        static final String DATABASE = "destination_crash";

        @Override
        public Map<String, String> getConfigOverrides() {
            return RestartablePostgres.shared().datasourceOf(DATABASE);
        }
    }

    private static final int N = 160;

    static HttpServer server;
    /** messageId (webhook-id) to the number of times it arrived. */
    static final Map<String, AtomicInteger> arrivals = new ConcurrentHashMap<>();

    /** Transaction ids whose delivery the receiver holds until {@link #release} opens. */
    static final Set<String> held = ConcurrentHashMap.newKeySet();
    static final Set<String> holding = ConcurrentHashMap.newKeySet();
    static final CountDownLatch release = new CountDownLatch(1);
    /** The held test's messageIds, kept out of the other test's count. */
    static final Set<String> ownIds = ConcurrentHashMap.newKeySet();

    @BeforeAll
    static void setUp() throws Exception {
        server = startReceiver(16, ex -> {
            ex.getRequestBody().readAllBytes();
            String txn = ex.getRequestHeaders().getFirst("Exactly-Transaction-Id");
            if (held.contains(txn)) {
                holding.add(txn);
                try {
                    release.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            try {
                Thread.sleep(20); // slow enough that the crash finds deliveries under way
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            arrivals.computeIfAbsent(ex.getRequestHeaders().getFirst("webhook-id"), k -> new AtomicInteger()).incrementAndGet();
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
    }

    @AfterAll
    static void tearDown() {
        if (server != null) {
            stopReceiver(server);
        }
        RestartablePostgres.shared().start();
    }

    @Test
    void aCrashMidDeliveryLosesNoMessageAndRepeatsCarryTheirIds() throws Exception {
        String queue = fresh("dest-crash");
        String name = "crash-" + queue;
        create(queue, name, "{\"url\":\"" + receiverUrl(server, "/hook") + "\"}");
        pause(queue, name);
        Set<String> pushed = new HashSet<>();
        for (int i = 0; i < N; i++) {
            pushed.add(push(queue, "p" + (i % 8), "k" + i, "{\"i\":" + i + "}"));
        }
        assertEquals(N, pushed.size());
        resume(queue, name);
        await("deliveries under way", Duration.ofSeconds(60), () -> arrivals.size() >= N / 4);
        RestartablePostgres pg = RestartablePostgres.shared();
        pg.crash();
        int atCrash = arrivals.size();
        Thread.sleep(500);
        pg.start();
        // leases the crash left (pops committed before it) run out after at least 30 s
        await("every pushed message delivered after the crash", Duration.ofSeconds(150), () -> arrivals.keySet().containsAll(pushed));
        Set<String> unknown = new HashSet<>(arrivals.keySet());
        unknown.removeAll(pushed);
        assertTrue(unknown.isEmpty(), "every arrival carries a pushed message's id: " + unknown);
        assertTrue(atCrash < N, "the crash came before the last delivery (" + atCrash + " of " + N + ")");
        delete(queue, name);
    }

    /**
     * A batch whose send ended while the database was down is acked once the database is back, under
     * its lease: its partition goes on at once (not when the lease runs out, at least 30 s later) and
     * the batch is not sent again.
     */
    @Test
    void aBatchSentWhileTheDatabaseWasDownIsAckedWhenItIsBack() throws Exception {
        String queue = fresh("dest-outage");
        String name = "outage-" + queue;
        String txn = "held-" + queue;
        held.add(txn);
        create(queue, name, "{\"url\":\"" + receiverUrl(server, "/hook") + "\"}");
        String heldId = push(queue, "h", txn, "{\"held\":true}");
        try (LogCapture capture = LogCapture.open()) {
            heldThroughAnOutage(queue, txn, heldId);
            // an operator sees the retries: one WARN at the first, one INFO when the acks went through
            List<String> warned = logged(capture, Level.WARNING, name);
            assertEquals(1, warned.stream().filter(t -> t.contains("retrying for up to 20 s")).count(), warned.toString());
            List<String> back = logged(capture, Level.INFO, name).stream().filter(t -> t.contains("acks written after")).toList();
            assertEquals(1, back.size(), back.toString());
            assertTrue(back.get(0).matches(".*after [0-9]+ tries in [0-9]+ ms.*"), back.get(0));
        } finally {
            // the other test counts every arrival as one of its own pushes
            arrivals.keySet().removeAll(ownIds);
        }
        delete(queue, name);
    }

    /** The dispatcher's records at that level (WARNING is WARN, as JBoss Logging writes it) that name the destination, formatted. */
    private static List<String> logged(LogCapture capture, Level level, String destination) {
        return capture.records().stream()
                .filter(r -> Dispatcher.class.getName().equals(r.getLoggerName()))
                .filter(r -> r.getLevel().intValue() == level.intValue())
                .map(ExtLogRecord::getFormattedMessage)
                .filter(t -> t != null && t.contains("destination " + destination + ":"))
                .toList();
    }

    private void heldThroughAnOutage(String queue, String txn, String heldId) throws Exception {
        ownIds.add(heldId);
        await("the held message at the receiver", Duration.ofSeconds(60), () -> holding.contains(txn));
        RestartablePostgres pg = RestartablePostgres.shared();
        try (Connection c = pg.connect(OwnServer.DATABASE); Statement s = c.createStatement()) {
            s.execute("CHECKPOINT"); // the lease's pop is on disk: the crash keeps it
        }
        pg.crash();
        release.countDown(); // the receiver answers 200 while the database is down: the ack cannot run
        Thread.sleep(2_000);
        pg.start();
        String afterId = push(queue, "h", "after-" + queue, "{\"after\":true}");
        ownIds.add(afterId);
        // within 20 s of the restart: before the held batch's lease (30 s) could run out
        await("the next message of the partition", Duration.ofSeconds(20), () -> arrivals.containsKey(afterId));
        assertEquals(1, arrivals.get(heldId).get(), "the held batch was acked, not sent again");
    }
}
