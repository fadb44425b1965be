package dev.exactly.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.exactly.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * exactly.push_bundle called directly (sql/R__push.sql): a bundle over several partitions with
 * different windows, one partition named in two segments of a bundle, and the lock-free answer
 * for a segment of committed duplicates.
 */
class PushBundleSqlTest {

    private static String db;

    @BeforeAll
    static void migrate() {
        db = TestDatabase.createMigratedDatabase();
    }

    /** One pushed item: segment's queue and partition, and a transactionId (hashed with md5 here). */
    private record It(String queue, String partition, String txn) {
    }

    /** One answered row: segment, item, offset, message id, duplicate, prev_last_offset, window. */
    private record Row(int segment, int item, long offset, String messageId, boolean duplicate, long prevLast, int window) {
    }

    /** Pushes segments (lists of items of one partition each) and returns the rows in order. */
    private static List<Row> push(List<List<It>> segments) throws Exception {
        try (Connection c = DriverManager.getConnection(TestDatabase.jdbcUrl(db), "postgres", "")) {
            return push(c, segments);
        }
    }

    /** As {@link #push(List)}, on a given connection (inside its transaction, if one is open). */
    private static List<Row> push(Connection c, List<List<It>> segments) throws Exception {
        List<String> queues = new ArrayList<>();
        List<String> parts = new ArrayList<>();
        List<String> counts = new ArrayList<>();
        List<String> hashes = new ArrayList<>();
        List<String> txns = new ArrayList<>();
        for (List<It> seg : segments) {
            queues.add("'" + seg.get(0).queue() + "'");
            parts.add("'" + seg.get(0).partition() + "'");
            counts.add(Integer.toString(seg.size()));
            for (It it : seg) {
                hashes.add("decode(md5('" + it.txn() + "'), 'hex')");
                txns.add("'" + it.txn() + "'");
            }
        }
        int n = hashes.size();
        String sql = "SELECT segment, item, \"offset\", message_id::text, duplicate, prev_last_offset, dedup_window_seconds "
                + "FROM exactly.push_bundle(ARRAY[" + String.join(",", queues) + "], ARRAY[" + String.join(",", parts) + "], "
                + "array_fill(-1::bigint, ARRAY[" + segments.size() + "]), ARRAY[" + String.join(",", counts) + "], "
                + "ARRAY[" + String.join(",", hashes) + "], array_fill(true, ARRAY[" + n + "]), "
                + "(SELECT array_agg(gen_random_uuid()) FROM generate_series(1, " + n + ")), ARRAY[" + String.join(",", txns) + "], "
                + "array_fill('\\x7b7d'::bytea, ARRAY[" + n + "]), array_fill(NULL::text, ARRAY[" + n + "]), "
                + "array_fill(NULL::text, ARRAY[" + n + "]), array_fill(NULL::text, ARRAY[" + n + "]))";
        List<Row> rows = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                rows.add(new Row(rs.getInt(1), rs.getInt(2), rs.getLong(3), rs.getString(4), rs.getBoolean(5), rs.getLong(6),
                        rs.getInt(7)));
            }
        }
        return rows;
    }

    private static void execute(String sql) throws Exception {
        try (Connection c = DriverManager.getConnection(TestDatabase.jdbcUrl(db), "postgres", "");
             Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    @Test
    void aBundleOverSeveralPartitionsAndWindowsGetsEachSegmentsVerdicts() throws Exception {
        execute("INSERT INTO exactly.queues (name, dedup_window_seconds) VALUES ('mix-b', 0)");
        List<Row> first = push(List.of(
                List.of(new It("mix-a", "a0", "h1"), new It("mix-a", "a0", "h2")),
                List.of(new It("mix-a", "a1", "h3")),
                List.of(new It("mix-b", "b0", "h4"))));
        assertEquals(4, first.size());
        assertEquals(new Row(1, 1, 0, first.get(0).messageId(), false, -1, 3600), first.get(0));
        assertEquals(new Row(1, 2, 1, first.get(1).messageId(), false, -1, 3600), first.get(1));
        assertEquals(new Row(2, 1, 0, first.get(2).messageId(), false, -1, 3600), first.get(2));
        assertEquals(new Row(3, 1, 0, first.get(3).messageId(), false, -1, 0), first.get(3));

        List<Row> second = push(List.of(
                List.of(new It("mix-a", "a0", "h5"), new It("mix-a", "a0", "h1")),
                List.of(new It("mix-a", "a1", "h1")),
                List.of(new It("mix-b", "b0", "h4"))));
        // a0: h5 new at the next dense offset, h1 a duplicate carrying the original's id and offset
        assertEquals(new Row(1, 1, 2, second.get(0).messageId(), false, 1, 3600), second.get(0));
        assertEquals(new Row(1, 2, 0, first.get(0).messageId(), true, 1, 3600), second.get(1));
        // a1: h1 was only stored in a0: new here
        assertEquals(new Row(2, 1, 1, second.get(2).messageId(), false, 0, 3600), second.get(2));
        // b0: window 0, so no probe: stored again
        assertEquals(new Row(3, 1, 1, second.get(3).messageId(), false, 0, 0), second.get(3));
        String mine = " IN (SELECT p.id FROM exactly.partitions p JOIN exactly.queues q ON q.id = p.queue_id "
                + "WHERE q.name LIKE 'mix-%')";
        assertEquals(7, count("SELECT count(*) FROM exactly.messages WHERE partition_id" + mine));
        assertEquals(7, count("SELECT count(*) FROM exactly.txn_hashes WHERE partition_id" + mine));
        assertEquals(2 + 1 + 1, count("SELECT sum(last_offset) FROM exactly.partitions WHERE id" + mine));
    }

    @Test
    void aPartitionNamedInTwoSegmentsIsSettledSegmentBySegment() throws Exception {
        List<Row> rows = push(List.of(
                List.of(new It("twice", "p", "x1")),
                List.of(new It("twice", "p", "x1"), new It("twice", "p", "x2"))));
        assertEquals(new Row(1, 1, 0, rows.get(0).messageId(), false, -1, 3600), rows.get(0));
        assertEquals(new Row(2, 1, 0, rows.get(0).messageId(), true, 0, 3600), rows.get(1));
        assertEquals(new Row(2, 2, 1, rows.get(2).messageId(), false, 0, 3600), rows.get(2));
        assertEquals(1, count("SELECT last_offset FROM exactly.partitions p JOIN exactly.queues q ON q.id = p.queue_id "
                + "WHERE q.name = 'twice'"));
    }

    @Test
    void aSegmentOfCommittedDuplicatesTakesNoLockAndNoTransactionId() throws Exception {
        List<Row> first = push(List.of(List.of(new It("ro", "p", "d1"), new It("ro", "p", "d2"))));
        try (Connection holder = DriverManager.getConnection(TestDatabase.jdbcUrl(db), "postgres", "");
             Connection c = DriverManager.getConnection(TestDatabase.jdbcUrl(db), "postgres", "")) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.execute("SELECT 1 FROM exactly.partitions p JOIN exactly.queues q ON q.id = p.queue_id "
                        + "WHERE q.name = 'ro' AND p.name = 'p' FOR UPDATE OF p");
            }
            try (Statement s = c.createStatement()) {
                s.execute("SET lock_timeout = '2s'");
            }
            c.setAutoCommit(false);
            // the partition's row lock is held by another transaction: a retry of both keys is answered anyway
            List<Row> again = push(c, List.of(List.of(new It("ro", "p", "d2"), new It("ro", "p", "d1"))));
            assertEquals(new Row(1, 1, 1, first.get(1).messageId(), true, 1, 3600), again.get(0));
            assertEquals(new Row(1, 2, 0, first.get(0).messageId(), true, 1, 3600), again.get(1));
            assertEquals(0, count(c, "SELECT count(txid_current_if_assigned())"), "no transaction id: nothing to commit");
            c.rollback();
            holder.rollback();
            // one new key among the duplicates: the locked path, which writes
            List<Row> mixed = push(c, List.of(List.of(new It("ro", "p", "d1"), new It("ro", "p", "d3"))));
            assertEquals(new Row(1, 1, 0, first.get(0).messageId(), true, 1, 3600), mixed.get(0));
            assertEquals(new Row(1, 2, 2, mixed.get(1).messageId(), false, 1, 3600), mixed.get(1));
            assertEquals(1, count(c, "SELECT count(txid_current_if_assigned())"));
            c.commit();
        }
        assertEquals(2, count("SELECT last_offset FROM exactly.partitions p JOIN exactly.queues q ON q.id = p.queue_id "
                + "WHERE q.name = 'ro'"));
    }

    private static long count(Connection c, String sql) throws Exception {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static long count(String sql) throws Exception {
        try (Connection c = DriverManager.getConnection(TestDatabase.jdbcUrl(db), "postgres", "");
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
