package dev.exactly.consume;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.TestDatabase;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Pop, ack (with a dead-lettering) and a retention purge step read the big tables only through
 * their indexes: with 20,000 messages stored (and never analysed), none of them scans
 * exactly.messages, exactly.txn_hashes, exactly.deliveries or exactly.consumer_cursors.
 */
class ConsumePlanTest {

    private static final String PUSH = "SELECT count(*) FROM exactly.push_bundle(ARRAY['plan'], ARRAY['p'], ARRAY[-1]::bigint[], "
            + "ARRAY[%d], (SELECT array_agg(decode(md5(i::text), 'hex')) FROM generate_series(%d, %d) i), "
            + "array_fill(true, ARRAY[%d]), (SELECT array_agg(gen_random_uuid()) FROM generate_series(1, %d)), "
            + "(SELECT array_agg(i::text) FROM generate_series(%d, %d) i), array_fill('\\x31'::bytea, ARRAY[%d]), "
            + "array_fill(NULL::text, ARRAY[%d]), array_fill(NULL::text, ARRAY[%d]), array_fill(NULL::text, ARRAY[%d]))";

    private static final List<String> TABLES = List.of("messages", "txn_hashes", "deliveries", "consumer_cursors");

    private static Map<String, Long> seqScans(Statement s) throws Exception {
        s.execute("SELECT pg_stat_force_next_flush()");
        Map<String, Long> out = new LinkedHashMap<>();
        try (ResultSet rs = s.executeQuery("SELECT relname, seq_scan FROM pg_stat_user_tables "
                + "WHERE schemaname = 'exactly' ORDER BY relname")) {
            while (rs.next()) {
                if (TABLES.contains(rs.getString(1))) {
                    out.put(rs.getString(1), rs.getLong(2));
                }
            }
        }
        return out;
    }

    @Test
    void consumptionAndRetentionNeverScanTheBigTables() throws Exception {
        String db = TestDatabase.createMigratedDatabase();
        try (Connection c = DriverManager.getConnection(TestDatabase.jdbcUrl(db), "postgres", "");
             Statement s = c.createStatement()) {
            s.execute("SET stats_fetch_consistency = none");
            for (int i = 0; i < 20; i++) {
                int from = i * 1000;
                int to = from + 999;
                s.execute(String.format(PUSH, 1000, from, to, 1000, 1000, from, to, 1000, 1000, 1000, 1000));
            }
            s.execute("UPDATE exactly.queues SET retention_seconds = 60, dedup_window_seconds = 1, retry_limit = 0 "
                    + "WHERE name = 'plan'");
            s.execute("UPDATE exactly.messages SET created_at = created_at - interval '1 hour' WHERE \"offset\" < 500");
            s.execute("UPDATE exactly.txn_hashes SET created_at = created_at - interval '1 hour' WHERE \"offset\" < 500");
            Map<String, Long> before = seqScans(s);

            List<UUID> ids = new ArrayList<>();
            UUID lease = null;
            try (ResultSet rs = s.executeQuery("SELECT message_id, lease_id FROM exactly.pop('plan', NULL, 'g', 100, 60)")) {
                while (rs.next()) {
                    ids.add((UUID) rs.getObject(1));
                    lease = (UUID) rs.getObject(2);
                }
            }
            assertEquals(100, ids.size());
            int n = ids.size();
            String[] statuses = new String[n];
            Arrays.fill(statuses, "completed");
            statuses[7] = "dlq";
            UUID[] leases = new UUID[n];
            Arrays.fill(leases, lease);
            String[] groups = new String[n];
            Arrays.fill(groups, "g");
            UUID[] dlqIds = new UUID[n];
            byte[][] hashes = new byte[n][];
            for (int i = 0; i < n; i++) {
                dlqIds[i] = UUID.randomUUID();
                hashes[i] = new byte[16];
                hashes[i][0] = (byte) i;
            }
            try (PreparedStatement ack = c.prepareStatement("SELECT count(*) FILTER (WHERE result = 'acked') "
                    + "FROM exactly.ack_batch(NULL, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                ack.setArray(1, c.createArrayOf("text", new String[n]));
                ack.setArray(2, c.createArrayOf("text", new String[n]));
                ack.setArray(3, c.createArrayOf("text", groups));
                ack.setArray(4, c.createArrayOf("uuid", leases));
                ack.setArray(5, c.createArrayOf("uuid", ids.toArray()));
                Array bytes = c.createArrayOf("bytea", hashes);
                ack.setArray(6, bytes);
                ack.setArray(7, c.createArrayOf("text", statuses));
                ack.setArray(8, c.createArrayOf("text", new String[n]));
                ack.setArray(9, c.createArrayOf("uuid", dlqIds));
                ack.setArray(10, bytes);
                try (ResultSet rs = ack.executeQuery()) {
                    rs.next();
                    assertEquals(100, rs.getLong(1));
                }
            }
            try (ResultSet rs = s.executeQuery("SELECT min(\"offset\") FROM exactly.pop('plan', 'p', 'g', 10, 60)")) {
                rs.next();
                assertEquals(100, rs.getLong(1), "the lease was released and the cursor advanced");
            }
            try (ResultSet rs = s.executeQuery("SELECT purged_messages, purged_hashes FROM exactly.purge_partition("
                    + "(SELECT id FROM exactly.partitions WHERE name = 'p' AND queue_id = "
                    + "(SELECT id FROM exactly.queues WHERE name = 'plan')), 1000)")) {
                rs.next();
                assertEquals(500, rs.getInt(1));
                assertEquals(500, rs.getInt(2));
            }
            Map<String, Long> after = seqScans(s);
            assertEquals(before, after, "a sequential scan of " + TABLES);
            assertTrue(after.size() == TABLES.size(), after.toString());
        }
    }
}
