package dev.exactly.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * exactly.push_segment's one-item form (sql/R__push.sql), called directly as the store calls it
 * for a partition whose id it knows: it must answer every push exactly as the set-based form
 * does (a differential run over the same pushes), answer a retry without a lock or a
 * transaction id, and refuse a push routed with another spreadPartitions or to a partition that
 * does not exist, writing nothing.
 */
class PushSegmentOneItemTest {

    private static final String ZERO = "00000000-0000-0000-0000-000000000000";
    private static String db;

    @BeforeAll
    static void migrate() {
        db = TestDatabase.createMigratedDatabase();
    }

    private static Connection connect() throws SQLException {
        return DriverManager.getConnection(TestDatabase.jdbcUrl(db), "postgres", "");
    }

    /** The id of partition {@code name} of queue {@code queue}, created when missing. */
    private static long partition(Connection c, String queue, String name) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SELECT exactly.ensure_partitions(ARRAY['" + queue + "'], ARRAY['" + name + "'])");
            try (ResultSet rs = s.executeQuery("SELECT exactly.partition_id('" + queue + "', '" + name + "')")) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** One pushed item: its key, whether it is probed, its payload's digest. */
    private record Item(String key, boolean probe, byte[] digest) {
    }

    /** One answered row of push_segment. */
    private record Answer(long offset, String messageId, boolean duplicate, long prevLast, int window, byte[] originalDigest) {
    }

    /** Calls push_segment(pid, -1, NULL, ...) with {@code items}, each with a new message id; answers in item order. */
    private static List<Answer> push(Connection c, long pid, List<Item> items, List<String> sentIds, int spread)
            throws SQLException {
        return push(c, pid, -1, items, sentIds, spread);
    }

    /** As above, with a vouched watermark {@code verified} under a one-hour window. */
    private static List<Answer> push(Connection c, long pid, long verified, List<Item> items, List<String> sentIds,
                                     int spread) throws SQLException {
        int n = items.size();
        String sql = "SELECT \"offset\", message_id::text, duplicate, prev_last_offset, dedup_window_seconds, original_digest "
                + "FROM exactly.push_segment(?, " + verified + ", 3600, ?, ?, ?::uuid[], ?, ?, ?, ?, ?, false, ?, ?)";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            byte[][] hashes = new byte[n][];
            Boolean[] probes = new Boolean[n];
            String[] ids = new String[n];
            String[] txns = new String[n];
            byte[][] payloads = new byte[n][];
            String[] types = new String[n];
            byte[][] digests = new byte[n][];
            for (int i = 0; i < n; i++) {
                Item it = items.get(i);
                hashes[i] = md5(it.key());
                probes[i] = it.probe();
                ids[i] = UUID.randomUUID().toString();
                sentIds.add(ids[i]);
                txns[i] = it.key();
                payloads[i] = "{}".getBytes();
                types[i] = "application/json";
                digests[i] = it.digest();
            }
            ps.setLong(1, pid);
            ps.setArray(2, c.createArrayOf("bytea", hashes));
            ps.setArray(3, c.createArrayOf("boolean", probes));
            ps.setArray(4, c.createArrayOf("text", ids));
            ps.setArray(5, c.createArrayOf("text", txns));
            ps.setArray(6, c.createArrayOf("bytea", payloads));
            ps.setArray(7, c.createArrayOf("text", types));
            ps.setArray(8, c.createArrayOf("text", new String[n]));
            ps.setArray(9, c.createArrayOf("text", new String[n]));
            ps.setInt(10, spread);
            ps.setArray(11, c.createArrayOf("bytea", digests));
            List<Answer> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Answer(rs.getLong(1), rs.getString(2), rs.getBoolean(3), rs.getLong(4), rs.getInt(5),
                            rs.getBytes(6)));
                }
            }
            return out;
        }
    }

    private static byte[] md5(String s) {
        try {
            return java.security.MessageDigest.getInstance("MD5").digest(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static long count(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static String transactionIdOf(Connection c, long pid, String messageId) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT transaction_id FROM exactly.messages "
                + "WHERE partition_id = " + pid + " AND message_id = '" + messageId + "'")) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    @Test
    void theOneItemFormAnswersAsTheSetBasedForm() throws Exception {
        try (Connection c = connect()) {
            long one = partition(c, "forms", "one");
            long set = partition(c, "forms", "set");
            Random random = new Random(20261201L);
            Map<String, byte[]> firstDigest = new HashMap<>();
            int duplicates = 0;
            int expired = 0;
            for (int i = 0; i < 400; i++) {
                String key = "k" + random.nextInt(40);
                boolean probe = random.nextInt(10) != 0;
                byte[] digest = new byte[] {(byte) random.nextInt(3)};
                if (random.nextInt(25) == 0) {
                    // the key's original leaves the window in both partitions
                    try (Statement s = c.createStatement()) {
                        s.execute("UPDATE exactly.txn_hashes SET created_at = created_at - interval '2 hours' "
                                + "WHERE partition_id IN (" + one + ", " + set + ") AND hash = decode(md5('" + key + "'), 'hex')");
                    }
                    firstDigest.remove(key);
                    expired++;
                }
                List<String> oneIds = new ArrayList<>();
                List<String> setIds = new ArrayList<>();
                Answer a = push(c, one, List.of(new Item(key, probe, digest)), oneIds, 0).get(0);
                // the same item first in a two-item segment, beside a key of its own (the set-based form)
                List<Answer> both = push(c, set, List.of(new Item(key, probe, digest), new Item("filler-" + i, true, null)),
                        setIds, 0);
                Answer b = both.get(0);
                assertEquals(b.duplicate(), a.duplicate(), "push " + i + " of " + key);
                assertEquals(b.window(), a.window());
                assertTrue(both.get(1).offset() > b.prevLast() && !both.get(1).duplicate());
                if (a.duplicate()) {
                    duplicates++;
                    assertEquals(key, transactionIdOf(c, one, a.messageId()), "the original's id, one-item form");
                    assertEquals(key, transactionIdOf(c, set, b.messageId()), "the original's id, set-based form");
                    assertTrue(a.offset() <= a.prevLast(), "a duplicate's offset is the original's");
                    assertEquals(java.util.Arrays.toString(b.originalDigest()), java.util.Arrays.toString(a.originalDigest()));
                    assertEquals(java.util.Arrays.toString(firstDigest.get(key)), java.util.Arrays.toString(a.originalDigest()));
                } else {
                    assertEquals(oneIds.get(0), a.messageId());
                    assertEquals(a.prevLast() + 1, a.offset(), "the next dense offset");
                    assertNull(a.originalDigest());
                    // the original of later duplicates: the lowest offset of the key inside the window
                    firstDigest.putIfAbsent(key, digest);
                }
            }
            assertTrue(duplicates > 100 && expired > 5, duplicates + " duplicates, " + expired + " expiries");
            assertEquals(count(c, "SELECT count(*) FROM exactly.messages WHERE partition_id = " + one),
                    count(c, "SELECT last_offset + 1 FROM exactly.partitions WHERE id = " + one));
            assertEquals(count(c, "SELECT count(*) FROM exactly.txn_hashes WHERE partition_id = " + one),
                    count(c, "SELECT count(*) FROM exactly.messages WHERE partition_id = " + one));
        }
    }

    @Test
    void aOneItemRetryIsAnsweredWithoutTheLockAndWithoutATransactionId() throws Exception {
        try (Connection c = connect(); Connection holder = connect()) {
            long pid = partition(c, "one-ro", "p");
            List<String> ids = new ArrayList<>();
            Answer first = push(c, pid, List.of(new Item("r1", true, null)), ids, 0).get(0);
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.execute("SELECT 1 FROM exactly.partitions WHERE id = " + pid + " FOR UPDATE");
            }
            try (Statement s = c.createStatement()) {
                s.execute("SET lock_timeout = '2s'");
            }
            c.setAutoCommit(false);
            Answer again = push(c, pid, List.of(new Item("r1", true, null)), new ArrayList<>(), 0).get(0);
            assertEquals(0, again.offset());
            assertEquals(ids.get(0), again.messageId());
            assertTrue(again.duplicate());
            assertEquals(0, again.prevLast());
            assertEquals(0, count(c, "SELECT count(txid_current_if_assigned())"), "no transaction id: nothing to commit");
            c.rollback();
            holder.rollback();
            assertEquals(0, first.offset());
        }
    }

    @Test
    void aVouchedSegmentSkipsTheLockFreeLookAndIsStillSettledUnderTheLock() throws Exception {
        try (Connection c = connect()) {
            long pid = partition(c, "vouched", "p");
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                push(c, pid, List.of(new Item("v" + i, true, null)), ids, 0);
            }
            c.setAutoCommit(false);
            for (List<Item> segment : List.of(List.of(new Item("v5", true, null)),
                    List.of(new Item("v5", true, null), new Item("v4", true, null)))) {
                // unvouched (-1): a retry is answered by the lock-free look, no transaction id
                Answer unvouched = push(c, pid, -1, segment, new ArrayList<>(), 0).get(0);
                assertTrue(unvouched.duplicate());
                assertEquals(0, count(c, "SELECT count(txid_current_if_assigned())"));
                c.rollback();
                // vouched "none at or below offset 3" (true: v5 is at 5, v4 at 4): no look, the
                // locked path finds them above the watermark
                List<Answer> vouched = push(c, pid, 3, segment, new ArrayList<>(), 0);
                assertEquals(segment.size(), vouched.size());
                for (int i = 0; i < segment.size(); i++) {
                    assertTrue(vouched.get(i).duplicate(), segment.get(i).key());
                    assertEquals(ids.get(Integer.parseInt(segment.get(i).key().substring(1))), vouched.get(i).messageId());
                }
                assertEquals(1, count(c, "SELECT count(txid_current_if_assigned())"), "the locked path");
                c.rollback();
            }
            c.setAutoCommit(true);
            assertEquals(6, count(c, "SELECT count(*) FROM exactly.messages WHERE partition_id = " + pid));
        }
    }

    @Test
    void aOneItemPushRoutedWithAnotherSpreadOrToNoPartitionWritesNothing() throws Exception {
        try (Connection c = connect()) {
            long pid = partition(c, "one-spread", "p");
            SQLException refused = assertThrows(SQLException.class,
                    () -> push(c, pid, List.of(new Item("s1", true, null)), new ArrayList<>(), 4));
            assertEquals("EXS01", refused.getSQLState());
            SQLException missing = assertThrows(SQLException.class,
                    () -> push(c, 987_654_321L, List.of(new Item("s1", true, null)), new ArrayList<>(), 0));
            assertEquals("P0002", missing.getSQLState());
            assertEquals(0, count(c, "SELECT count(*) FROM exactly.messages WHERE partition_id = " + pid));
            assertEquals(-1, count(c, "SELECT last_offset FROM exactly.partitions WHERE id = " + pid));
            Answer ok = push(c, pid, List.of(new Item("s1", true, null)), new ArrayList<>(), 0).get(0);
            assertEquals(0, ok.offset());
            assertEquals(ZERO.length(), ok.messageId().length());
        }
    }
}
