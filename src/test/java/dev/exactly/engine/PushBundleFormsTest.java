package dev.exactly.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The two ways a multi-partition bundle is settled (sql/R__push.sql): exactly.settle_bundle, all
 * segments at once (what push_bundle does on plain PostgreSQL for distinct partitions), and one
 * exactly.push_segment call per segment (what it does on Citus). The same random bundles go
 * through both, into two queues of the same shape: every answer must be equal (verdict, offset,
 * the watermark, the window, the original's digest, the original's id), and so must what was
 * stored. The bundles mix retries of earlier keys, repeats inside a segment, unprobed items and
 * keys whose original left the window.
 */
class PushBundleFormsTest {

    private static String db;

    @BeforeAll
    static void migrate() {
        db = TestDatabase.createMigratedDatabase();
    }

    private static Connection connect() throws SQLException {
        return DriverManager.getConnection(TestDatabase.jdbcUrl(db), "postgres", "");
    }

    /** One pushed item: its partition's name, its key, whether it is probed, its payload's digest. */
    private record Item(String partition, String key, boolean probe, byte[] digest) {
    }

    /** One answered row, the original's id replaced by the key it was pushed with (the queues' ids differ). */
    private record Answer(int segment, int item, long offset, String originalKey, boolean duplicate, long prevLast,
                          int window, String originalDigest, boolean reject) {
    }

    private static final String BUNDLE = "SELECT segment, item, \"offset\", message_id::text, duplicate, prev_last_offset, "
            + "dedup_window_seconds, original_digest, reject_mismatch "
            + "FROM exactly.push_bundle(?, ?, ?, ?, ?, ?, ?::uuid[], ?, ?, ?, ?, ?, NULL, ?, ?)";

    private static final String SEGMENT = "SELECT item, \"offset\", message_id::text, duplicate, prev_last_offset, "
            + "dedup_window_seconds, original_digest, reject_mismatch "
            + "FROM exactly.push_segment(exactly.partition_id(?, ?), -1, NULL, ?, ?, ?::uuid[], ?, ?, ?, ?, ?, false, 0, ?)";

    /** The segments of a bundle: items grouped by partition, in first-seen order. */
    private static List<List<Item>> segments(List<Item> items) {
        Map<String, List<Item>> by = new java.util.LinkedHashMap<>();
        for (Item it : items) {
            by.computeIfAbsent(it.partition(), p -> new ArrayList<>()).add(it);
        }
        return new ArrayList<>(by.values());
    }

    /** Pushes {@code segments} into {@code queue} with one push_bundle call; ids sent are recorded per key. */
    private static List<Answer> viaBundle(Connection c, String queue, List<List<Item>> segments, Map<String, String> keyOfId,
                                          int[] spreads) throws SQLException {
        List<Item> flat = new ArrayList<>();
        String[] queues = new String[segments.size()];
        String[] parts = new String[segments.size()];
        Long[] verified = new Long[segments.size()];
        Integer[] counts = new Integer[segments.size()];
        Integer[] spread = new Integer[segments.size()];
        for (int s = 0; s < segments.size(); s++) {
            queues[s] = queue;
            parts[s] = segments.get(s).get(0).partition();
            verified[s] = -1L;
            counts[s] = segments.get(s).size();
            spread[s] = spreads == null ? 0 : spreads[s];
            flat.addAll(segments.get(s));
        }
        try (PreparedStatement ps = c.prepareStatement(BUNDLE)) {
            ps.setArray(1, c.createArrayOf("text", queues));
            ps.setArray(2, c.createArrayOf("text", parts));
            ps.setArray(3, c.createArrayOf("bigint", verified));
            ps.setArray(4, c.createArrayOf("integer", counts));
            bindItems(c, ps, 5, flat, keyOfId);
            ps.setArray(13, c.createArrayOf("integer", spread));
            ps.setArray(14, c.createArrayOf("bytea", flat.stream().map(Item::digest).toArray(byte[][]::new)));
            List<Answer> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(answer(rs.getInt(1), rs, 2, keyOfId));
                }
            }
            return out;
        }
    }

    /** Pushes {@code segments} into {@code queue} with one push_segment call each, in one transaction. */
    private static List<Answer> viaSegments(Connection c, String queue, List<List<Item>> segments, Map<String, String> keyOfId)
            throws SQLException {
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
            s.execute("SELECT exactly.ensure_partitions(ARRAY[" + String.join(",", Collections.nCopies(segments.size(), "'" + queue + "'"))
                    + "], ARRAY[" + String.join(",", segments.stream().map(g -> "'" + g.get(0).partition() + "'").toList()) + "])");
        }
        List<Answer> out = new ArrayList<>();
        for (int g = 0; g < segments.size(); g++) {
            List<Item> seg = segments.get(g);
            try (PreparedStatement ps = c.prepareStatement(SEGMENT)) {
                ps.setString(1, queue);
                ps.setString(2, seg.get(0).partition());
                bindItems(c, ps, 3, seg, keyOfId);
                ps.setArray(11, c.createArrayOf("bytea", seg.stream().map(Item::digest).toArray(byte[][]::new)));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(answer(g + 1, rs, 1, keyOfId));
                    }
                }
            }
        }
        c.commit();
        c.setAutoCommit(true);
        return out;
    }

    /** Binds the eight per-item arrays (hashes .. trace ids) from parameter {@code at}, each item with a new message id. */
    private static void bindItems(Connection c, PreparedStatement ps, int at, List<Item> items, Map<String, String> keyOfId)
            throws SQLException {
        int n = items.size();
        byte[][] hashes = new byte[n][];
        Boolean[] probes = new Boolean[n];
        String[] ids = new String[n];
        String[] txns = new String[n];
        byte[][] payloads = new byte[n][];
        String[] types = new String[n];
        for (int i = 0; i < n; i++) {
            Item it = items.get(i);
            hashes[i] = md5(it.key());
            probes[i] = it.probe();
            ids[i] = UUID.randomUUID().toString();
            keyOfId.put(ids[i], it.key());
            txns[i] = it.key();
            payloads[i] = "{}".getBytes(StandardCharsets.UTF_8);
            types[i] = "application/json";
        }
        ps.setArray(at, c.createArrayOf("bytea", hashes));
        ps.setArray(at + 1, c.createArrayOf("boolean", probes));
        ps.setArray(at + 2, c.createArrayOf("text", ids));
        ps.setArray(at + 3, c.createArrayOf("text", txns));
        ps.setArray(at + 4, c.createArrayOf("bytea", payloads));
        ps.setArray(at + 5, c.createArrayOf("text", types));
        ps.setArray(at + 6, c.createArrayOf("text", new String[n]));
        ps.setArray(at + 7, c.createArrayOf("text", new String[n]));
    }

    private static Answer answer(int segment, ResultSet rs, int at, Map<String, String> keyOfId) throws SQLException {
        String id = rs.getString(at + 2);
        return new Answer(segment, rs.getInt(at), rs.getLong(at + 1), keyOfId.getOrDefault(id, id), rs.getBoolean(at + 3),
                rs.getLong(at + 4), rs.getInt(at + 5), Arrays.toString(rs.getBytes(at + 6)), rs.getBoolean(at + 7));
    }

    private static byte[] md5(String s) {
        try {
            return MessageDigest.getInstance("MD5").digest(s.getBytes(StandardCharsets.UTF_8));
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

    /** How often {@code function} of the exactly schema was called (track_functions must be on). */
    private static long calls(Connection c, String function) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SELECT pg_stat_force_next_flush()");
        }
        return count(c, "SELECT COALESCE(sum(calls), 0) FROM pg_stat_user_functions "
                + "WHERE schemaname = 'exactly' AND funcname = '" + function + "'");
    }

    /** What a queue stores, partition by partition: name, offset, key, digest, in order. */
    private static List<String> stored(Connection c, String queue) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT p.name, m.\"offset\", m.transaction_id, encode(m.payload_digest, 'hex'), p.last_offset, "
                        + "(SELECT count(*) FROM exactly.txn_hashes h WHERE h.partition_id = p.id) "
                        + "FROM exactly.partitions p JOIN exactly.queues q ON q.id = p.queue_id "
                        + "LEFT JOIN exactly.messages m ON m.partition_id = p.id "
                        + "WHERE q.name = '" + queue + "' ORDER BY p.name, m.\"offset\"")) {
            while (rs.next()) {
                rows.add(rs.getString(1) + "/" + rs.getLong(2) + "/" + rs.getString(3) + "/" + rs.getString(4) + "/"
                        + rs.getLong(5) + "/" + rs.getLong(6));
            }
        }
        return rows;
    }

    @Test
    void theSetBasedBundleAnswersAsOnePushSegmentCallPerSegment() throws Exception {
        try (Connection c = connect(); Connection d = connect()) {
            try (Statement s = c.createStatement()) {
                s.execute("SET track_functions = 'all'");
                s.execute("SET stats_fetch_consistency = none");
            }
            Random random = new Random(20261201L);
            Map<String, String> keyOfId = new HashMap<>();
            long settleBefore = calls(c, "settle_bundle");
            long segmentBefore = calls(c, "push_segment");
            int duplicates = 0;
            int expired = 0;
            int bundles = 150;
            for (int b = 0; b < bundles; b++) {
                List<Item> items = new ArrayList<>();
                int partitions = 2 + random.nextInt(5);
                List<String> names = new ArrayList<>();
                while (names.size() < partitions) {
                    String name = "p" + random.nextInt(8);
                    if (!names.contains(name)) {
                        names.add(name);
                    }
                }
                for (String name : names) {
                    int n = 1 + random.nextInt(4);
                    for (int i = 0; i < n; i++) {
                        // a small key space per partition: retries, and now and then a repeat inside the segment
                        items.add(new Item(name, name + "-k" + random.nextInt(12), random.nextInt(10) != 0,
                                new byte[] {(byte) random.nextInt(3)}));
                    }
                }
                if (random.nextInt(20) == 0) {
                    // a key's original leaves the window, in both queues
                    Item aged = items.get(random.nextInt(items.size()));
                    try (Statement s = c.createStatement()) {
                        s.execute("UPDATE exactly.txn_hashes SET created_at = created_at - interval '2 hours' "
                                + "WHERE hash = decode(md5('" + aged.key() + "'), 'hex')");
                    }
                    expired++;
                }
                List<List<Item>> segments = segments(items);
                List<Answer> set = viaBundle(c, "forms-set", segments, keyOfId, null);
                List<Answer> each = viaSegments(d, "forms-each", segments, keyOfId);
                assertEquals(each, set, "bundle " + b);
                duplicates += (int) set.stream().filter(Answer::duplicate).count();
            }
            assertTrue(duplicates > 150 && expired > 3, duplicates + " duplicates, " + expired + " expiries");
            assertEquals(stored(c, "forms-each"), stored(c, "forms-set"), "what the two queues store");
            assertEquals(bundles, calls(c, "settle_bundle") - settleBefore, "every bundle went through settle_bundle");
            assertEquals(0, calls(c, "push_segment") - segmentBefore, "no bundle went segment by segment");
        }
    }

    @Test
    void aBundleRoutedWithAnotherSpreadWritesNothing() throws Exception {
        try (Connection c = connect()) {
            Map<String, String> keyOfId = new HashMap<>();
            List<List<Item>> segments = segments(List.of(new Item("a", "s1", true, null), new Item("b", "s2", true, null),
                    new Item("c", "s3", true, null)));
            viaBundle(c, "forms-spread", segments, keyOfId, null);
            SQLException refused = assertThrows(SQLException.class,
                    () -> viaBundle(c, "forms-spread", segments(List.of(new Item("a", "s4", true, null),
                            new Item("b", "s5", true, null))), keyOfId, new int[] {0, 4}));
            assertEquals("EXS01", refused.getSQLState());
            assertEquals(3, count(c, "SELECT count(*) FROM exactly.messages m JOIN exactly.partitions p ON p.id = m.partition_id "
                    + "JOIN exactly.queues q ON q.id = p.queue_id WHERE q.name = 'forms-spread'"));
            assertEquals(0, count(c, "SELECT sum(p.last_offset) FROM exactly.partitions p JOIN exactly.queues q ON q.id = p.queue_id "
                    + "WHERE q.name = 'forms-spread'"), "each partition's watermark is still its one message's offset");
        }
    }
}
