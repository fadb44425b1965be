package dev.exactly.destination;

import static dev.exactly.destination.DestinationFixtures.answering;
import static dev.exactly.destination.DestinationFixtures.await;
import static dev.exactly.destination.DestinationFixtures.create;
import static dev.exactly.destination.DestinationFixtures.destinations;
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
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Which commits wait for their WAL flush in the server shape's defaults: a push's do (fused flushes
 * commit synchronously), a destination's bookkeeping does not: its pops (they lease only messages
 * whose pushes committed synchronously; a pop of a message committed before its flush is
 * CommitBeforeFlushTest's), acks and figures. Observed through the server's count of WAL syncs ({@code pg_stat_wal.wal_sync})
 * on a PostgreSQL of the tests' own with synchronous_commit on and fsync on
 * ({@link RestartablePostgres}), its WAL writer slowed to one flush per 10 s so that the syncs
 * counted are mostly the committing backends' own. Pushes alone (the destination paused) must add at
 * least one sync each; the deliveries of as many messages, one at a time (one partition, batches of
 * one: each a pop and an ack), fewer than one per two messages (synchronous pops or acks would add
 * one per message each). Backends report their WAL figures
 * within 10 s of going idle, so each count is read after 11 s of quiet.
 */
@QuarkusTest
@TestProfile(DestinationCommitsTest.OwnServer.class)
class DestinationCommitsTest {

    /** The application on a database of its own on {@link RestartablePostgres}, delivering batches of one message. */
    public static class OwnServer implements QuarkusTestProfile {

        static final String DATABASE = "destination_commits";

        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> settings = RestartablePostgres.shared().datasourceOf(DATABASE);
            settings.put("exactly.delivery.batch", "1");
            return settings;
        }
    }

    private static final int N = 20;
    private static final long QUIET_MS = 11_000;

    static HttpServer server;
    static final Set<String> ids = ConcurrentHashMap.newKeySet();

    @BeforeAll
    static void setUp() throws Exception {
        serverSetting("ALTER SYSTEM SET wal_writer_delay = '10s'");
        server = startReceiver(1, answering(200, ex -> ids.add(ex.getRequestHeaders().getFirst("webhook-id"))));
    }

    @AfterAll
    static void tearDown() throws Exception {
        if (server != null) {
            stopReceiver(server);
        }
        serverSetting("ALTER SYSTEM RESET wal_writer_delay");
    }

    private static void serverSetting(String sql) throws Exception {
        try (Connection c = RestartablePostgres.shared().connect("postgres"); Statement s = c.createStatement()) {
            s.execute(sql);
            s.execute("SELECT pg_reload_conf()");
        }
    }

    /** The server's WAL syncs so far, read after {@link #QUIET_MS} for the backends to report theirs. */
    private static long walSyncs() throws Exception {
        Thread.sleep(QUIET_MS);
        try (Connection c = RestartablePostgres.shared().connect(OwnServer.DATABASE); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT wal_sync FROM pg_stat_wal")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void pushesWaitForTheirFlushADestinationsPopsAndAcksOfThemDoNot() throws Exception {
        String queue = fresh("dest-commits");
        String name = "commits-" + queue;
        create(queue, name, "{\"url\":\"" + receiverUrl(server, "/hook") + "\"}");
        pause(queue, name);

        long start = walSyncs();
        for (int i = 0; i < N; i++) {
            push(queue, "p", "c" + i, "{\"i\":" + i + "}");
        }
        long pushed = walSyncs();
        resume(queue, name);
        await(N + " delivered", () -> ids.size() >= N);
        await("acked", () -> destinations(queue).getLong("destinations[0].state.delivered") == N);
        long delivered = walSyncs();

        assertEquals(N, ids.size());
        long pushSyncs = pushed - start;
        long deliverySyncs = delivered - pushed;
        assertTrue(pushSyncs >= N, "each push waits for its own WAL flush: " + pushSyncs + " syncs for " + N + " pushes");
        // synchronous pops or acks: about N each. Besides them: the WAL writer's few (one per 10 s, or
        // per page of WAL written), the resume's own and those of the application's other timers
        assertTrue(deliverySyncs < N / 2, "the deliveries' pops and acks commit asynchronously: " + deliverySyncs
                + " syncs for " + N + " messages delivered one at a time (" + pushSyncs + " for as many pushes)");
    }
}
