package dev.exactly.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.db.DatabaseErrors;
import dev.exactly.db.StoreTimeoutException;
import dev.exactly.engine.PushCommand;
import dev.exactly.engine.PushStatus;
import dev.exactly.engine.PushVerdict;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Faults between an engine instance and PostgreSQL, on a server of the tests' own
 * ({@link RestartablePostgres}): replies lost after the commit, requests lost before the server,
 * connections cut and backends terminated mid-push, statement and lock timeouts, an instance
 * discarded between the commit and the reply, a crash of the database under load. After each,
 * clients that retry with the same transactionIds end with every id stored exactly once and
 * consistent answers; the pools reconnect by themselves.
 */
class ConnectionFaultsTest {

    private static final String DB = "faults_connection";
    private static final int STATEMENT_MS = 10_000;
    private static final int LOCK_MS = 5_000;

    private static RestartablePostgres pg;
    private static Vertx vertx;
    private static FaultProxy proxy;

    @BeforeAll
    static void start() {
        pg = RestartablePostgres.shared();
        pg.start();
        pg.createMigratedDatabase(DB);
        vertx = Vertx.vertx();
        proxy = new FaultProxy(pg.port());
        // initialise Mutiny's context propagation once, before many client threads race to do it
        try (EngineInstance warm = instance("exactly-fault-warm", 1, STATEMENT_MS, LOCK_MS)) {
            push(warm, items("warm", "p", "w"));
        }
    }

    @AfterAll
    static void stop() {
        proxy.close();
        vertx.closeAndAwait();
        pg.start();
    }

    private static EngineInstance instance(String name, int maxSize, int statementMs, int lockMs) {
        return new EngineInstance(vertx, proxy.port(), DB, maxSize, name, statementMs, lockMs);
    }

    private static List<PushCommand> items(String queue, String partition, String... txns) {
        List<PushCommand> out = new ArrayList<>();
        for (String t : txns) {
            out.add(PushCommand.json(queue, partition, t, ("{\"t\":\"" + t + "\"}").getBytes(StandardCharsets.UTF_8), null));
        }
        return out;
    }

    private static List<PushVerdict> push(EngineInstance i, List<PushCommand> items) {
        return i.engine().push(items).await().atMost(Duration.ofSeconds(60));
    }

    /** transactionId → message ids stored for it in the queue. */
    private static Map<String, List<UUID>> stored(String queue) throws Exception {
        Map<String, List<UUID>> out = new HashMap<>();
        try (Connection c = pg.connect(DB); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT m.transaction_id, m.message_id FROM exactly.messages m "
                     + "JOIN exactly.partitions p ON p.id = m.partition_id JOIN exactly.queues q ON q.id = p.queue_id "
                     + "WHERE q.name = '" + queue + "'")) {
            while (rs.next()) {
                out.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(rs.getObject(2, UUID.class));
            }
        }
        return out;
    }

    /** Each verdict is "queued" with the one message stored for its id. */
    private static void assertQueuedAndStoredOnce(String queue, List<PushVerdict> verdicts) throws Exception {
        Map<String, List<UUID>> stored = stored(queue);
        assertEquals(verdicts.size(), stored.size(), "stored ids: " + stored);
        for (PushVerdict v : verdicts) {
            assertEquals(PushStatus.QUEUED, v.status(), v.toString());
            assertEquals(List.of(v.messageId()), stored.get(v.transactionId()), "stored for " + v.transactionId());
        }
    }

    /** A retry of the same ids answers duplicate with the same message ids. */
    private static void assertRetryIsDuplicate(EngineInstance i, List<PushCommand> items, List<PushVerdict> first) {
        List<PushVerdict> again = push(i, items);
        for (int k = 0; k < first.size(); k++) {
            assertEquals(PushStatus.DUPLICATE, again.get(k).status());
            assertEquals(first.get(k).messageId(), again.get(k).messageId());
        }
    }

    @Test
    void aReplyLostAfterTheCommitIsRetriedByTheStoreAndAnsweredQueuedOnce() throws Exception {
        try (EngineInstance a = instance("exactly-fault-hold", 1, STATEMENT_MS, LOCK_MS)) {
            push(a, items("hold", "p", "warm-up")); // opens the connection, learns the partition's id
            push(a, items("hold", "p", "warm-up")); // a duplicate: prepares the statement by partition id
            List<PushCommand> items = items("hold", "p", "h-1", "h-2", "h-3");
            FaultProxy.Hold hold = proxy.holdNextReply();
            CompletableFuture<List<PushVerdict>> reply = a.engine().push(items).subscribeAsCompletionStage();
            assertTrue(hold.awaitHeld(60), "the server never answered");
            // the server has answered: the push is committed, and the client has not heard
            assertEquals(4, stored("hold").size(), "the first attempt did not commit");
            hold.release();
            List<PushVerdict> verdicts = reply.get(60, TimeUnit.SECONDS);
            assertEquals(1, proxy.repliesDropped());
            Map<String, List<UUID>> stored = stored("hold");
            assertEquals(4, stored.size());
            for (PushVerdict v : verdicts) {
                // found under its own message id by the retry: that is this request's own write
                assertEquals(PushStatus.QUEUED, v.status(), v.toString());
                assertEquals(List.of(v.messageId()), stored.get(v.transactionId()));
            }
            assertRetryIsDuplicate(a, items, verdicts);
        }
    }

    @Test
    void aRequestLostBeforeTheServerIsRetriedByTheStoreAndStoredOnce() throws Exception {
        try (EngineInstance a = instance("exactly-fault-drop", 1, STATEMENT_MS, LOCK_MS)) {
            push(a, items("drop", "warm", "warm-up"));
            int before = proxy.requestsDropped();
            List<PushCommand> items = items("drop", "p", "d-1", "d-2");
            proxy.dropNextRequest();
            List<PushVerdict> verdicts = push(a, items);
            assertEquals(before + 1, proxy.requestsDropped());
            Map<String, List<UUID>> stored = stored("drop");
            assertEquals(3, stored.size(), "warm-up, d-1, d-2: " + stored);
            for (PushVerdict v : verdicts) {
                assertEquals(PushStatus.QUEUED, v.status());
                assertEquals(List.of(v.messageId()), stored.get(v.transactionId()));
            }
            assertRetryIsDuplicate(a, items, verdicts);
        }
    }

    @Test
    void anInstanceStoppedBetweenTheCommitAndTheReplyThenARetryOnAnotherInstance() throws Exception {
        List<PushCommand> items = items("stopped", "p", "s-1", "s-2", "s-3");
        EngineInstance a = instance("exactly-fault-a", 2, STATEMENT_MS, LOCK_MS);
        // instance A commits, then is stopped before it can answer: its verdicts never reach the client
        CompletableFuture<List<PushVerdict>> lost = a.engine().push(items)
                .onItem().transformToUni(v -> {
                    a.close();
                    return Uni.createFrom().<List<PushVerdict>>failure(new IllegalStateException("instance stopped before replying"));
                })
                .subscribeAsCompletionStage();
        Throwable t = assertThrows(Exception.class, () -> lost.get(60, TimeUnit.SECONDS));
        assertTrue(t.getCause().getMessage().contains("instance stopped"), t.toString());
        assertTrue(a.isClosed());
        Map<String, List<UUID>> stored = stored("stopped");
        assertEquals(3, stored.size(), "A committed before it stopped");
        try (EngineInstance b = instance("exactly-fault-b", 2, STATEMENT_MS, LOCK_MS)) {
            // the client retries on B: duplicate, carrying the ids A minted and stored
            List<PushVerdict> retry = push(b, items);
            for (PushVerdict v : retry) {
                assertEquals(PushStatus.DUPLICATE, v.status());
                assertEquals(List.of(v.messageId()), stored.get(v.transactionId()));
            }
            assertRetryIsDuplicate(b, items, retry);
        }
        assertEquals(stored, stored("stopped"), "the retries wrote nothing");
    }

    @Test
    void aStatementPastItsTimeoutFailsCleanlyAndWritesNothing() throws Exception {
        try (EngineInstance a = instance("exactly-fault-stmt", 1, 500, 0);
             Connection holder = pg.connect(DB)) {
            push(a, items("stmt", "p", "s-0"));
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.execute("SELECT 1 FROM exactly.partitions WHERE name = 'p' AND queue_id = "
                        + "(SELECT id FROM exactly.queues WHERE name = 'stmt') FOR UPDATE");
            }
            List<PushCommand> items = items("stmt", "p", "s-1", "s-2");
            Throwable e = assertThrows(Exception.class, () -> push(a, items));
            assertInstanceOf(StoreTimeoutException.class, e, e.toString());
            assertEquals("57014", DatabaseErrors.sqlState(e), "a statement timeout");
            holder.rollback();
            assertEquals(1, stored("stmt").size(), "the timed-out push wrote something");
            List<PushVerdict> verdicts = push(a, items);
            verdicts.forEach(v -> assertEquals(PushStatus.QUEUED, v.status()));
            assertEquals(3, stored("stmt").size());
            assertRetryIsDuplicate(a, items, verdicts);
        }
    }

    @Test
    void aLockWaitPastItsTimeoutFailsCleanlyAndWritesNothing() throws Exception {
        try (EngineInstance a = instance("exactly-fault-lock", 1, STATEMENT_MS, 300);
             Connection holder = pg.connect(DB)) {
            push(a, items("lock", "p", "l-0"));
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.execute("SELECT 1 FROM exactly.partitions WHERE name = 'p' AND queue_id = "
                        + "(SELECT id FROM exactly.queues WHERE name = 'lock') FOR UPDATE");
            }
            Throwable e = assertThrows(Exception.class, () -> push(a, items("lock", "p", "l-1")));
            assertInstanceOf(StoreTimeoutException.class, e, e.toString());
            assertEquals("55P03", DatabaseErrors.sqlState(e), "a lock timeout");
            holder.rollback();
            assertEquals(1, stored("lock").size());
            assertEquals(PushStatus.QUEUED, push(a, items("lock", "p", "l-1")).get(0).status());
        }
    }

    private static long waitingOnLocks() throws Exception {
        try (Connection c = pg.connect(DB); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void aBundleWaitingForAHeldPartitionHoldsNoneOfItsOtherPartitions() throws Exception {
        try (EngineInstance a = instance("exactly-fault-bundle-a", 1, STATEMENT_MS, 3000);
             EngineInstance b = instance("exactly-fault-bundle-b", 1, STATEMENT_MS, 1000);
             Connection holder = pg.connect(DB)) {
            // "free" gets the lower partition id: a bundle locks it first, in ascending id order
            push(a, List.of(items("bundle", "free", "f-0").get(0), items("bundle", "held", "h-0").get(0)));
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.execute("SELECT 1 FROM exactly.partitions WHERE name = 'held' AND queue_id = "
                        + "(SELECT id FROM exactly.queues WHERE name = 'bundle') FOR UPDATE");
            }
            List<PushCommand> bundle = List.of(items("bundle", "free", "f-1").get(0), items("bundle", "held", "h-1").get(0));
            CompletableFuture<List<PushVerdict>> waiting = a.engine().push(bundle).subscribeAsCompletionStage();
            long until = System.currentTimeMillis() + 30_000;
            while (waitingOnLocks() < 1 && System.currentTimeMillis() < until) {
                Thread.sleep(20);
            }
            assertEquals(1, waitingOnLocks(), "the bundle is not waiting for the held partition");
            // while the bundle waits, another instance pushes to the free partition (lock_timeout 1 s:
            // were the bundle holding it, this would fail)
            assertEquals(PushStatus.QUEUED, push(b, items("bundle", "free", "f-2")).get(0).status());
            Throwable e = assertThrows(Exception.class, () -> waiting.get(60, TimeUnit.SECONDS));
            assertInstanceOf(StoreTimeoutException.class, e.getCause(), e.toString());
            holder.rollback();
            Map<String, List<UUID>> stored = stored("bundle");
            assertEquals(java.util.Set.of("f-0", "h-0", "f-2"), stored.keySet(), "the timed-out bundle wrote something");
            List<PushVerdict> retry = push(a, bundle);
            retry.forEach(v -> assertEquals(PushStatus.QUEUED, v.status()));
            assertRetryIsDuplicate(b, bundle, retry);
        }
    }

    /** Clients on two instances push overlapping ids while {@code fault} strikes; then the audit. */
    private static PushLedger.Audit underLoad(String queue, Fault fault, long faultEveryMs, int seconds) throws Exception {
        PushLedger ledger = new PushLedger();
        PushTraffic traffic = new PushTraffic(new String[] {queue}, new String[] {"p0", "p1", "p2"}, ledger);
        long giveUp = System.currentTimeMillis() + seconds * 1000L + 120_000;
        SoakStats stats;
        try (EngineInstances fleet = new EngineInstances(vertx, 2, proxy.port(), DB, STATEMENT_MS, LOCK_MS)) {
            stats = Soak.run(seconds * 1000L, List.of(new Soak.Traffic(new EnginePush(fleet, traffic, giveUp), 8)),
                    List.of(fault), faultEveryMs, pg::start, new Random().nextLong());
        }
        PushLedger.Audit audit;
        try (Connection c = pg.connect(DB)) {
            audit = ledger.audit(c, traffic.queues());
        }
        System.out.println("[reliability] " + fault.name() + ": " + stats.report().replace('\n', ';') + "; " + audit.line());
        assertEquals(0, stats.errors(), stats.firstErrors());
        assertTrue(stats.faults() > 0, "no fault was injected");
        assertTrue(stats.operations() > 0, "no push completed");
        assertEquals(0, audit.lost(), "lost");
        assertEquals(0, audit.duplicated(), "duplicated");
        assertEquals(0, audit.inconsistent(), "inconsistent");
        assertEquals(0, audit.phantom(), "phantom");
        assertEquals(0, audit.unanswered(), "unanswered");
        return audit;
    }

    @Test
    void backendsTerminatedMidPush() throws Exception {
        underLoad("terminated", new Fault("pg_terminate_backend", () -> pg.terminateBackends(DB)), 300, 4);
    }

    @Test
    void connectionsCutMidPush() throws Exception {
        underLoad("cut", new Fault("connections cut", proxy::cutAll), 300, 4);
    }

    @Test
    void databaseCrashedAndRestartedUnderLoad() throws Exception {
        underLoad("crashed", new Fault("crash and restart database", () -> {
            pg.crash();
            Thread.sleep(300);
            pg.start();
        }), 2000, 6);
    }
}
