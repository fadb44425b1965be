package dev.exactly.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.exactly.testing.CitusCluster;
import io.vertx.mutiny.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * {@link PushEngineConcurrencyTest} on a Citus cluster ({@link CitusCluster}: a coordinator and
 * its workers, the schema distributed by sql/citus/distribute.sql), and what only a cluster shows:
 * partitions spread over both workers, single-partition calls delegated to the worker that holds
 * the partition, and partition row locks that hold on a worker while the coordinator runs a
 * function (citus issue #5560). Skipped when {@value CitusCluster#URL_VARIABLE} is not set.
 */
@EnabledIfEnvironmentVariable(named = CitusCluster.URL_VARIABLE, matches = ".+", disabledReason = CitusCluster.SKIPPED)
class PushEngineConcurrencyCitusTest extends PushEngineConcurrencyTest {

    private static CitusCluster.Target cluster;

    /** Hides the base class's set-up: the same pools, on the cluster. */
    @BeforeAll
    static void start() {
        cluster = CitusCluster.prepare();
        try (Connection c = cluster.connect(); Statement st = c.createStatement()) {
            // count function calls on the workers (a delegated call runs there; see delegatedCalls):
            // Citus sends the setting to every worker; new sessions there take it
            st.execute("ALTER DATABASE " + cluster.database() + " SET track_functions = 'pl'");
            try (ResultSet rs = st.executeQuery("SELECT bool_and(success) FROM run_command_on_workers("
                    + "$$SELECT pg_stat_reset()$$)")) {
                rs.next();
                assertTrue(rs.getBoolean(1), "pg_stat_reset() on the workers");
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        vertx = Vertx.vertx();
        poolA = cluster.pool(vertx, 8);
        poolB = cluster.pool(vertx, 8);
        audit = cluster.pool(vertx, 2);
        audit.query("SELECT 1").executeAndAwait();
    }

    /**
     * Exactness on a distributed database: two engine instances and 16 clients push overlapping ids
     * into partitions that live on both workers; every id is stored exactly once, nothing
     * deadlocks, and the single-partition pushes ran on the workers (each worker ran push_segment
     * calls itself).
     */
    @Test
    void sixteenClientsOverPartitionsOnBothWorkersStoreEachIdOnce() throws Exception {
        String[] partitions = partitionsReachingBothWorkers("spread", 8);
        overlappingPushes("spread", partitions);
        Map<String, Integer> nodes = new HashMap<>();
        for (long pid : partitionIds("spread")) {
            nodes.merge(nodeOf(pid), 1, Integer::sum);
        }
        assertEquals(2, nodes.size(), "the partitions live on both workers: " + nodes);
        // a backend reports its function counters when idle, up to ~10 s later (PostgreSQL's
        // cumulative statistics): wait for them
        Map<String, Long> calls = delegatedCalls("push_segment");
        for (int i = 0; i < 30 && calls.values().stream().anyMatch(n -> n == 0); i++) {
            Thread.sleep(1000);
            calls = delegatedCalls("push_segment");
        }
        assertEquals(2, calls.size(), "both workers ran push_segment: " + calls);
        Map<String, Long> seen = calls;
        seen.forEach((node, n) -> assertTrue(n > 0, "worker " + node + " ran no push_segment call: " + seen));
    }

    /**
     * A single-partition push, pop and ack each go to one function whose distribution argument is
     * the partition id, and Citus delegates the call to the worker holding the partition (EXPLAIN
     * on the coordinator: one task, on that worker, running the function).
     */
    @Test
    void singlePartitionCallsAreDelegatedToTheWorkerHoldingThePartition() throws Exception {
        PushRepository repo = new PushRepository(poolA);
        PushEngine engine = new PushEngine(repo, DedupCache.DISABLED);
        engine.push(List.of(PushCommand.json("deleg", "p", "t-1", "{}".getBytes(StandardCharsets.UTF_8), null)))
                .await().atMost(Duration.ofSeconds(30));
        try (Connection c = cluster.connect(); Statement st = c.createStatement()) {
            long pid = partitionIds("deleg").get(0);
            String worker = "port=" + nodeOf(pid).split(":")[1];
            String uuid = "'00000000-0000-7000-8000-000000000001'::uuid";
            String[] calls = {
                "SELECT item FROM exactly.push_segment(" + pid + ", -1, NULL, ARRAY['\\x01'::bytea], ARRAY[true], "
                        + "ARRAY[" + uuid + "], ARRAY['t-2'], ARRAY['\\x7b7d'::bytea], ARRAY[NULL]::text[], "
                        + "ARRAY[NULL]::text[], ARRAY[NULL]::text[])",
                "SELECT \"offset\" FROM exactly.pop_partition(" + pid + ", 'deleg', 'p', 'g', 10, 60, NULL, "
                        + "ARRAY[" + uuid + "], ARRAY['\\x01'::bytea])",
                "SELECT result FROM exactly.ack_partition(" + pid + ", ARRAY['deleg'], ARRAY['p'], ARRAY['g'], "
                        + "ARRAY[" + uuid + "], ARRAY[NULL]::uuid[], ARRAY['\\x01'::bytea], ARRAY['completed'], "
                        + "ARRAY[NULL]::text[], ARRAY[" + uuid + "], ARRAY['\\x01'::bytea])"
            };
            for (String call : calls) {
                StringBuilder plan = new StringBuilder();
                try (ResultSet rs = st.executeQuery("EXPLAIN (COSTS OFF) " + call)) {
                    while (rs.next()) {
                        plan.append(rs.getString(1)).append('\n');
                    }
                }
                String p = plan.toString();
                assertTrue(p.startsWith("Custom Scan (Citus Adaptive)"), "delegated: " + call + "\n" + p);
                assertTrue(p.contains("Task Count: 1"), p);
                assertTrue(p.contains(worker), "runs on the worker holding partition " + pid + " (" + worker + ")\n" + p);
                assertTrue(p.contains("Function Scan on"), p);
            }
        }
    }

    /**
     * citus issue #5560: a SELECT ... FOR UPDATE that is a function's first statement on a shard
     * may be sent to the worker outside a transaction block, and its row lock then ends with the
     * statement. lock_partitions, run on the coordinator over partitions on both workers (as a
     * multi-partition bundle runs it), must keep every lock until its transaction ends: while it
     * sleeps in the same statement, a NOWAIT lock of each partition fails.
     */
    @Test
    void partitionLocksTakenOnTheCoordinatorHoldOnTheWorkers() throws Exception {
        String[] partitions = {"l0", "l1", "l2", "l3", "l4", "l5"};
        List<PushCommand> items = new ArrayList<>();
        for (String p : partitions) {
            items.add(PushCommand.json("locks", p, "t", "{}".getBytes(StandardCharsets.UTF_8), null));
        }
        new PushEngine(new PushRepository(poolA), DedupCache.DISABLED).push(items).await().atMost(Duration.ofSeconds(30));
        List<Long> pids = partitionIds("locks");
        Set<String> ports = new HashSet<>();
        for (long pid : pids) {
            ports.add(nodeOf(pid));
        }
        assertEquals(2, ports.size(), "partitions on both workers");
        String array = "ARRAY" + pids + "::bigint[]";
        CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> {
            try (Connection c = cluster.connect(); Statement st = c.createStatement()) {
                st.executeQuery("SELECT exactly.lock_partitions(" + array + "), pg_sleep(4)").close();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(1500);
        try (Connection c = cluster.connect(); Statement st = c.createStatement()) {
            for (long pid : pids) {
                try {
                    st.executeQuery("SELECT 1 FROM exactly.partitions WHERE id = " + pid + " FOR UPDATE NOWAIT").close();
                    fail("partition " + pid + " was not locked while lock_partitions' transaction ran");
                } catch (SQLException e) {
                    assertEquals("55P03", e.getSQLState(), e.getMessage());
                }
            }
        }
        holder.get(30, TimeUnit.SECONDS);
        assertFalse(holder.isCompletedExceptionally());
    }

    /**
     * A delegated push_segment takes the partition's row lock on the worker: while another
     * session holds it, a push of a new id waits, and completes once the lock is released.
     */
    @Test
    void aDelegatedPushWaitsForThePartitionLock() throws Exception {
        PushEngine engine = new PushEngine(new PushRepository(poolA), DedupCache.DISABLED);
        engine.push(List.of(PushCommand.json("wait", "p", "t-0", "{}".getBytes(StandardCharsets.UTF_8), null)))
                .await().atMost(Duration.ofSeconds(30)); // learns the partition id: the next push goes to push_segment
        try (Connection c = cluster.connect(); Statement st = c.createStatement()) {
            long pid;
            try (ResultSet rs = st.executeQuery("SELECT exactly.partition_id('wait', 'p')")) {
                rs.next();
                pid = rs.getLong(1);
            }
            c.setAutoCommit(false);
            st.executeQuery("SELECT 1 FROM exactly.partitions p WHERE p.id = " + pid + " FOR UPDATE").close();
            CompletableFuture<List<PushVerdict>> push = engine.push(List.of(PushCommand.json("wait", "p", "t-1",
                    "{}".getBytes(StandardCharsets.UTF_8), null))).subscribeAsCompletionStage();
            Thread.sleep(1500);
            assertFalse(push.isDone(), "the push went on while the partition was locked");
            c.commit();
            assertEquals(PushStatus.QUEUED, push.get(30, TimeUnit.SECONDS).get(0).status());
        }
    }

    /**
     * Citus' distributed deadlock detection may cancel a push where no deadlock exists: it counts
     * every process of a node that is in no distributed transaction as one transaction (citus
     * issue #1803). Here two such processes on the worker holding partition h (sessions of the
     * worker's own, as an operator's or another client's would be) and two bundles over h and r,
     * run on the coordinator: the first session holds h's row; the first bundle waits for it
     * (holding the row's tuple lock, as its first waiter), the second session waits behind the
     * bundle, the second bundle behind that session. Nothing waits in a cycle (the first session
     * waits for nothing), yet the detection, which runs every deadlock_timeout times
     * citus.distributed_deadlock_detection_factor, finds one through the merged processes and
     * cancels the first bundle (40P01); it wrote nothing, and its push must still be answered
     * (PushRepository runs it again), each id stored once.
     */
    @Test
    void aPushCancelledByAFalseDistributedDeadlockIsRunAgain() throws Exception {
        PushEngine engine = new PushEngine(new PushRepository(poolA), DedupCache.DISABLED);
        engine.push(List.of(item("h", "t-0"), item("r", "t-0"))).await().atMost(Duration.ofSeconds(30));
        long hold;
        long h;
        String shard;
        try (Connection c = cluster.connect(); Statement st = c.createStatement()) {
            hold = 3 * detectorPeriodMillis(st);
            try (ResultSet rs = st.executeQuery("SELECT exactly.partition_id('falsedl', 'h')")) {
                assertTrue(rs.next());
                h = rs.getLong(1);
            }
            try (ResultSet rs = st.executeQuery("SELECT shard_name FROM citus_shards WHERE table_name = "
                    + "'exactly.partitions'::regclass AND shardid = get_shard_id_for_distribution_column("
                    + "'exactly.partitions', " + h + ")")) {
                assertTrue(rs.next());
                shard = rs.getString(1);
            }
        }
        String[] node = nodeOf(h).split(":");
        CitusCluster.Target worker = new CitusCluster.Target(node[0], Integer.parseInt(node[1]), cluster.user(),
                cluster.password(), cluster.database());
        String lockH = "SELECT 1 FROM " + shard + " WHERE id = " + h + " FOR UPDATE";
        List<CompletableFuture<List<PushVerdict>>> pushes = new ArrayList<>();
        CompletableFuture<Void> second;
        try (Connection first = worker.connect(); Connection watch = worker.connect();
             Statement fs = first.createStatement(); Statement ws = watch.createStatement()) {
            first.setAutoCommit(false);
            fs.executeQuery(lockH).close();
            pushes.add(engine.push(List.of(item("h", "b-1"), item("r", "b-2"))).subscribeAsCompletionStage());
            PushConflictRetryTest.awaitLockWaiters(ws, 1);
            second = CompletableFuture.runAsync(() -> {
                try (Connection c = worker.connect(); Statement st = c.createStatement()) {
                    st.executeQuery(lockH).close();
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            PushConflictRetryTest.awaitLockWaiters(ws, 2);
            pushes.add(engine.push(List.of(item("h", "c-1"), item("r", "c-2"))).subscribeAsCompletionStage());
            PushConflictRetryTest.awaitLockWaiters(ws, 3);
            Thread.sleep(hold);
            first.commit();
        }
        second.get(60, TimeUnit.SECONDS);
        Map<String, java.util.UUID> answered = new HashMap<>();
        for (CompletableFuture<List<PushVerdict>> push : pushes) {
            for (PushVerdict v : push.get(60, TimeUnit.SECONDS)) {
                assertEquals(PushStatus.QUEUED, v.status(), v.toString());
                answered.put(v.partition() + "/" + v.transactionId(), v.messageId());
            }
        }
        assertEquals(4, answered.size(), answered.toString());
        Map<String, java.util.UUID> stored = new HashMap<>();
        try (Connection c = cluster.connect(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT p.name || '/' || m.transaction_id, m.message_id FROM exactly.messages m "
                     + "JOIN exactly.partitions p ON p.id = m.partition_id JOIN exactly.queues q ON q.id = p.queue_id "
                     + "WHERE q.name = 'falsedl' AND m.transaction_id <> 't-0'")) {
            while (rs.next()) {
                assertEquals(null, stored.put(rs.getString(1), rs.getObject(2, java.util.UUID.class)), "stored twice");
            }
        }
        assertEquals(answered, stored);
    }

    private static PushCommand item(String partition, String txn) {
        return PushCommand.json("falsedl", partition, txn, "{}".getBytes(StandardCharsets.UTF_8), null);
    }

    /** How often Citus' distributed deadlock detection runs: deadlock_timeout times its factor. */
    private static long detectorPeriodMillis(Statement st) throws SQLException {
        try (ResultSet rs = st.executeQuery("SELECT extract(epoch FROM current_setting('deadlock_timeout')::interval) "
                + "* 1000, current_setting('citus.distributed_deadlock_detection_factor')::float8")) {
            rs.next();
            double factor = rs.getDouble(2);
            org.junit.jupiter.api.Assumptions.assumeTrue(factor > 0, "distributed deadlock detection is off");
            return (long) (rs.getDouble(1) * factor);
        }
    }

    /**
     * Names n or more partitions of a queue, w0, w1, …, of which both workers hold at least one. The
     * worker follows from the id a partition gets, and the ids from what ran before (other tests,
     * ids a lost race used up): so the first ones are created here, one at a time, as a first push
     * does (exactly.ensure_partitions), until both workers hold one; the others are left to the
     * pushes to create.
     *
     * @param queue the queue
     * @param n     how many names at least
     * @return the names
     */
    private static String[] partitionsReachingBothWorkers(String queue, int n) throws SQLException {
        List<String> names = new ArrayList<>();
        Set<String> nodes = new HashSet<>();
        try (Connection c = cluster.connect();
             java.sql.PreparedStatement create = c.prepareStatement("SELECT exactly.ensure_partitions(ARRAY[?], ARRAY[?])");
             java.sql.PreparedStatement id = c.prepareStatement("SELECT exactly.partition_id(?, ?)")) {
            while (nodes.size() < 2) {
                assertTrue(names.size() < 64, "64 partitions, all on " + nodes);
                String name = "w" + names.size();
                create.setString(1, queue);
                create.setString(2, name);
                create.execute();
                id.setString(1, queue);
                id.setString(2, name);
                try (ResultSet rs = id.executeQuery()) {
                    assertTrue(rs.next());
                    nodes.add(nodeOf(rs.getLong(1)));
                }
                names.add(name);
            }
        }
        while (names.size() < n) {
            names.add("w" + names.size());
        }
        return names.toArray(String[]::new);
    }

    /** The ids of a queue's partitions, ascending. */
    private static List<Long> partitionIds(String queue) throws SQLException {
        List<Long> out = new ArrayList<>();
        try (Connection c = cluster.connect(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT n.id FROM exactly.partition_names n JOIN exactly.queues q "
                     + "ON q.id = n.queue_id WHERE q.name = '" + queue + "' ORDER BY n.id")) {
            while (rs.next()) {
                out.add(rs.getLong(1));
            }
        }
        return out;
    }

    /** host:port of the worker that holds partition pid's shard. */
    private static String nodeOf(long pid) throws SQLException {
        try (Connection c = cluster.connect(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT nodename || ':' || nodeport FROM citus_shards "
                     + "WHERE table_name = 'exactly.partitions'::regclass "
                     + "AND shardid = get_shard_id_for_distribution_column('exactly.partitions', " + pid + ")")) {
            assertTrue(rs.next(), "no placement of partition " + pid);
            return rs.getString(1);
        }
    }

    /** Calls of exactly.&lt;function&gt; each worker ran itself (pg_stat_user_functions there), by node. */
    private static Map<String, Long> delegatedCalls(String function) throws SQLException {
        Map<String, Long> out = new HashMap<>();
        try (Connection c = cluster.connect(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT nodename || ':' || nodeport, result FROM run_command_on_workers("
                     + "$$SELECT COALESCE(sum(calls), 0) FROM pg_stat_user_functions WHERE schemaname = 'exactly' "
                     + "AND funcname = '" + function + "'$$)")) {
            while (rs.next()) {
                out.put(rs.getString(1), Long.parseLong(rs.getString(2)));
            }
        }
        return out;
    }
}
