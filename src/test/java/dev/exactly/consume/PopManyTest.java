package dev.exactly.consume;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * exactly.pop_many, the pop that leases several due partitions at once (a destination's): each
 * partition leased once under a lease of its own, its batch in offset order, a partition leased by
 * another consumer skipped, at most p_max_partitions leased, and two callers at once never lease
 * the same partition.
 */
class PopManyTest {

    /** push_bundle of one segment: queue, partition, n messages whose transaction ids start at from. */
    private static final String PUSH = "SELECT count(*) FROM exactly.push_bundle(ARRAY['%1$s'], ARRAY['%2$s'], ARRAY[-1]::bigint[], "
            + "ARRAY[%3$d], (SELECT array_agg(decode(md5(i::text), 'hex')) FROM generate_series(%4$d, %5$d) i), "
            + "array_fill(true, ARRAY[%3$d]), (SELECT array_agg(gen_random_uuid()) FROM generate_series(1, %3$d)), "
            + "(SELECT array_agg(i::text) FROM generate_series(%4$d, %5$d) i), array_fill('\\x31'::bytea, ARRAY[%3$d]), "
            + "array_fill(NULL::text, ARRAY[%3$d]), array_fill(NULL::text, ARRAY[%3$d]), array_fill(NULL::text, ARRAY[%3$d]))";

    private static final String POP_MANY = "SELECT partition_name, \"offset\", lease_id, more_due, more_here "
            + "FROM exactly.pop_many('%s', NULL, 'g', %d, 60, %s, '{}', '{}', NULL, true, %d)";

    /** A pop's rows: partition name, offset, lease, more_due, more_here. */
    private record Popped(String partition, long offset, UUID lease, boolean moreDue, boolean moreHere) {
    }

    private static void push(Statement s, String queue, String partition, int n) throws Exception {
        int from = Math.abs((queue + "/" + partition).hashCode() % 1_000_000) * 1000;
        s.execute(String.format(PUSH, queue, partition, n, from, from + n - 1));
    }

    private static List<Popped> popMany(Statement s, String queue, int batch, Long maxBytes, int partitions) throws Exception {
        List<Popped> out = new ArrayList<>();
        try (ResultSet rs = s.executeQuery(String.format(POP_MANY, queue, batch, maxBytes == null ? "NULL" : maxBytes.toString(),
                partitions))) {
            while (rs.next()) {
                out.add(new Popped(rs.getString(1), rs.getLong(2), (UUID) rs.getObject(3), rs.getBoolean(4), rs.getBoolean(5)));
            }
        }
        return out;
    }

    /** The rows by partition, in the order the partitions came; fails when a partition's rows are not together. */
    private static Map<String, List<Popped>> byPartition(List<Popped> rows) {
        Map<String, List<Popped>> out = new LinkedHashMap<>();
        String last = null;
        for (Popped p : rows) {
            if (!p.partition().equals(last)) {
                assertFalse(out.containsKey(p.partition()), "the rows of " + p.partition() + " come together: " + rows);
                out.put(p.partition(), new ArrayList<>());
                last = p.partition();
            }
            out.get(p.partition()).add(p);
        }
        return out;
    }

    @Test
    void leasesUpToKDuePartitionsEachOnceUnderItsOwnLease() throws Exception {
        String db = TestDatabase.createMigratedDatabase();
        try (Connection c = DriverManager.getConnection(TestDatabase.jdbcUrl(db), "postgres", "");
             Statement s = c.createStatement()) {
            for (int p = 0; p < 5; p++) {
                push(s, "pm", "p" + p, 10);
            }
            // another consumer of the group holds p1
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM exactly.pop_due('pm', 'p1', 'g', 4, 60)")) {
                rs.next();
                assertEquals(4, rs.getInt(1));
            }

            List<Popped> first = popMany(s, "pm", 3, null, 3);
            Map<String, List<Popped>> parts = byPartition(first);
            assertEquals(3, parts.size(), "K = 3 partitions leased: " + first);
            assertFalse(parts.containsKey("p1"), "the partition another consumer holds is skipped");
            Set<UUID> leases = new HashSet<>();
            for (Map.Entry<String, List<Popped>> e : parts.entrySet()) {
                List<Popped> rows = e.getValue();
                assertEquals(List.of(0L, 1L, 2L), rows.stream().map(Popped::offset).toList(), "offset order in " + e.getKey());
                assertEquals(1, rows.stream().map(Popped::lease).distinct().count(), "one lease per partition");
                assertTrue(rows.get(rows.size() - 1).moreHere(), "the partition has more");
                leases.add(rows.get(0).lease());
            }
            assertEquals(3, leases.size(), "each partition under a lease of its own");
            assertTrue(first.get(first.size() - 1).moreDue(), "a fifth partition was still due");

            List<Popped> second = popMany(s, "pm", 3, null, 10);
            Map<String, List<Popped>> rest = byPartition(second);
            assertEquals(1, rest.size(), "only the fifth partition was left: " + second);
            for (String p : rest.keySet()) {
                assertFalse(parts.containsKey(p) || p.equals("p1"), "never leased twice: " + p);
            }
            assertFalse(second.get(second.size() - 1).moreDue(), "nothing else was due");
            assertTrue(popMany(s, "pm", 3, null, 10).isEmpty(), "every partition is leased");

            // a byte budget applies to each partition's batch: the first message of each always
            s.execute("UPDATE exactly.consumer_cursors SET lease_expires_at = now() - interval '1 second'");
            List<Popped> budget = popMany(s, "pm", 10, 1L, 10);
            Map<String, List<Popped>> one = byPartition(budget);
            assertEquals(5, one.size(), "every expired lease leased again: " + budget);
            for (List<Popped> rows : one.values()) {
                assertEquals(1, rows.size(), "one message within the budget");
            }
        }
    }

    @Test
    void twoCallersAtOnceNeverLeaseTheSamePartition() throws Exception {
        String db = TestDatabase.createMigratedDatabase();
        int partitions = 6;
        int rounds = 60;
        ExecutorService exec = Executors.newFixedThreadPool(2);
        try (Connection a = DriverManager.getConnection(TestDatabase.jdbcUrl(db), "postgres", "");
             Connection b = DriverManager.getConnection(TestDatabase.jdbcUrl(db), "postgres", "");
             Statement sa = a.createStatement(); Statement sb = b.createStatement()) {
            int both = 0;
            int leased = 0;
            for (int r = 0; r < rounds; r++) {
                String queue = "race" + r;
                for (int p = 0; p < partitions; p++) {
                    push(sa, queue, "p" + p, 2);
                }
                if (r % 4 != 0) {
                    // the group's cursors exist (as after its first pops): the callers meet at their row locks,
                    // not at inserting them
                    sa.execute("INSERT INTO exactly.consumer_cursors (partition_id, consumer_group) SELECT p.id, 'g' "
                            + "FROM exactly.partitions p JOIN exactly.queues q ON q.id = p.queue_id WHERE q.name = '" + queue + "'");
                }
                CyclicBarrier start = new CyclicBarrier(2);
                Future<List<Popped>> fa = exec.submit(() -> {
                    start.await();
                    return popMany(sa, queue, 5, null, 4);
                });
                Future<List<Popped>> fb = exec.submit(() -> {
                    start.await();
                    return popMany(sb, queue, 5, null, 4);
                });
                Map<String, List<Popped>> pa = byPartition(fa.get());
                Map<String, List<Popped>> pb = byPartition(fb.get());
                assertTrue(pa.size() <= 4 && pb.size() <= 4, "K respected: " + pa.keySet() + " " + pb.keySet());
                Set<String> common = new HashSet<>(pa.keySet());
                common.retainAll(pb.keySet());
                assertTrue(common.isEmpty(), "round " + r + ": leased by both callers: " + common);
                assertEquals(partitions, pa.size() + pb.size(), "round " + r + ": every due partition leased once: "
                        + pa.keySet() + " " + pb.keySet());
                for (List<Popped> rows : pa.values()) {
                    assertEquals(List.of(0L, 1L), rows.stream().map(Popped::offset).toList());
                }
                for (List<Popped> rows : pb.values()) {
                    assertEquals(List.of(0L, 1L), rows.stream().map(Popped::offset).toList());
                }
                if (!pa.isEmpty() && !pb.isEmpty()) {
                    both++;
                }
                leased += pa.size() + pb.size();
            }
            assertEquals(rounds * partitions, leased);
            assertTrue(both > 0, "the callers overlapped in some round");
        } finally {
            exec.shutdownNow();
        }
    }
}
