package dev.exactly.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * The probe is one primary-key descent per incoming hash, never a walk of the window, whatever
 * the statistics said when the plan was made. Plans are generic and kept per connection, so the
 * dangerous moment is a connection's first push into a table its statistics call empty: a plan
 * made then must still be a key lookup once the window holds 20,000 hashes. Counted from
 * pg_stat_user_indexes (index tuples read), for a one-segment bundle, the segment-by-segment path
 * (a bundle naming one partition twice) and the multi-partition path (settle_bundle). The same
 * holds for a bundle's partition names: one key lookup each, not a walk of the queue's partitions.
 * The other index,
 * txn_hashes_offset, is partial (sql/V4) so that only queries stating its predicate can use it;
 * retention's purge walk must still be one of them.
 */
class ProbePlanTest {

    private static final String ARGS = "ARRAY[%d], (SELECT array_agg(decode(md5(i::text), 'hex')) FROM generate_series(%d, %d) i), "
            + "array_fill(true, ARRAY[%d]), (SELECT array_agg(gen_random_uuid()) FROM generate_series(1, %d)), "
            + "(SELECT array_agg(i::text) FROM generate_series(%d, %d) i), array_fill('\\x31'::bytea, ARRAY[%d]), "
            + "array_fill(NULL::text, ARRAY[%d]), array_fill(NULL::text, ARRAY[%d]), array_fill(NULL::text, ARRAY[%d]))";

    /** One segment of hashes md5(from..to) into plan/p; counts the duplicates answered. */
    private static String push(int from, int to) {
        int n = to - from + 1;
        return "SELECT count(*) FILTER (WHERE duplicate) FROM exactly.push_bundle(ARRAY['plan'], ARRAY['p'], "
                + "ARRAY[-1]::bigint[], " + String.format(ARGS, n, from, to, n, n, from, to, n, n, n, n);
    }

    /** Two segments naming plan/p twice (the segment-by-segment path), split evenly. */
    private static String pushTwice(int from, int to) {
        int n = to - from + 1;
        String args = String.format(ARGS, n, from, to, n, n, from, to, n, n, n, n)
                .replaceFirst("^ARRAY\\[\\d+\\]", "ARRAY[" + (n / 2) + ", " + (n - n / 2) + "]");
        return "SELECT count(*) FILTER (WHERE duplicate) FROM exactly.push_bundle(ARRAY['plan', 'plan'], "
                + "ARRAY['p', 'p'], ARRAY[-1, -1]::bigint[], " + args;
    }

    /** Two segments into plan/p and plan/q (the set-based multi-partition path, settle_bundle), split evenly. */
    private static String pushTwo(int from, int to) {
        int n = to - from + 1;
        String args = String.format(ARGS, n, from, to, n, n, from, to, n, n, n, n)
                .replaceFirst("^ARRAY\\[\\d+\\]", "ARRAY[" + (n / 2) + ", " + (n - n / 2) + "]");
        return "SELECT count(*) FILTER (WHERE duplicate) FROM exactly.push_bundle(ARRAY['plan', 'plan'], "
                + "ARRAY['p', 'q'], ARRAY[-1, -1]::bigint[], " + args;
    }

    /** Index tuples read so far from {@code index} of the exactly schema. */
    private static long tuplesRead(Statement s, String index) throws Exception {
        return indexCounter(s, index, "idx_tup_read");
    }

    /** Index scans started so far on {@code index} of the exactly schema (a rescan per probed hash counts). */
    private static long indexScans(Statement s, String index) throws Exception {
        return indexCounter(s, index, "idx_scan");
    }

    /** One counter of pg_stat_user_indexes for {@code index} of the exactly schema, flushed first. */
    private static long indexCounter(Statement s, String index, String column) throws Exception {
        s.execute("SELECT pg_stat_force_next_flush()");
        try (ResultSet rs = s.executeQuery("SELECT " + column + " FROM pg_stat_user_indexes "
                + "WHERE schemaname = 'exactly' AND indexrelname = '" + index + "'")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static long seqScans(Statement s) throws Exception {
        s.execute("SELECT pg_stat_force_next_flush()");
        try (ResultSet rs = s.executeQuery("SELECT seq_scan FROM pg_stat_user_tables "
                + "WHERE schemaname = 'exactly' AND relname = 'txn_hashes'")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Which path of push_bundle a bundle takes. */
    private enum Path { ONE_SEGMENT, SEGMENT_BY_SEGMENT, ALL_SEGMENTS_AT_ONCE }

    private static String push(Path path, int from, int to) {
        return switch (path) {
            case ONE_SEGMENT -> push(from, to);
            case SEGMENT_BY_SEGMENT -> pushTwice(from, to);
            case ALL_SEGMENTS_AT_ONCE -> pushTwo(from, to);
        };
    }

    private void assertProbeIsKeyLookups(Path path) throws Exception {
        String db = TestDatabase.createMigratedDatabase();
        try (Connection c = DriverManager.getConnection(TestDatabase.jdbcUrl(db), "postgres", "");
             Statement s = c.createStatement()) {
            s.execute("SET stats_fetch_consistency = none");
            // statistics that call the hash table empty, then the connection's first (planning) push
            s.execute("VACUUM ANALYZE exactly.txn_hashes");
            try (ResultSet rs = s.executeQuery(push(path, -10, -1))) {
                rs.next();
            }
            for (int i = 0; i < 20; i++) {
                // into plan/p (two partitions would split each range where the last push splits it otherwise)
                s.execute(path == Path.ALL_SEGMENTS_AT_ONCE ? push(i * 1000, i * 1000 + 999) : push(path, i * 1000, i * 1000 + 999));
            }
            long seqBefore = seqScans(s);
            long pkBefore = tuplesRead(s, "txn_hashes_pkey");
            long offsetBefore = tuplesRead(s, "txn_hashes_offset");
            // 50 hashes already stored (duplicates) and 50 new ones, on the plans made at the start
            try (ResultSet rs = s.executeQuery(push(path, 19950, 20049))) {
                rs.next();
                assertEquals(50, rs.getLong(1));
            }
            long pkRead = tuplesRead(s, "txn_hashes_pkey") - pkBefore;
            long offsetRead = tuplesRead(s, "txn_hashes_offset") - offsetBefore;
            assertEquals(seqBefore, seqScans(s), "the probe scanned exactly.txn_hashes sequentially");
            assertEquals(0, offsetRead, "the probe walked txn_hashes_offset (the window by offset)");
            assertTrue(pkRead >= 50 && pkRead <= 200,
                    "100 probes (50 stored) should read about one key each, read " + pkRead);
        }
    }

    @Test
    void theBundleProbeStaysAKeyLookupOnAPlanMadeWhileTheTableLookedEmpty() throws Exception {
        assertProbeIsKeyLookups(Path.ONE_SEGMENT);
    }

    @Test
    void theOneItemProbeStaysAKeyLookupOnAPlanMadeWhileTheTableLookedEmpty() throws Exception {
        String db = TestDatabase.createMigratedDatabase();
        try (Connection c = DriverManager.getConnection(TestDatabase.jdbcUrl(db), "postgres", "");
             Statement s = c.createStatement()) {
            s.execute("SET stats_fetch_consistency = none");
            s.execute("VACUUM ANALYZE exactly.txn_hashes");
            // the connection's first one-item pushes plan both statements of the one-item form:
            // the lock-free look (a stored key) and the probe under the lock (a new key)
            s.execute(push(-1, -1));
            s.execute(push(-1, -1));
            s.execute(push(-2, -2));
            for (int i = 0; i < 20; i++) {
                s.execute(push(i * 1000, i * 1000 + 999));
            }
            long seqBefore = seqScans(s);
            long pkBefore = tuplesRead(s, "txn_hashes_pkey");
            long offsetBefore = tuplesRead(s, "txn_hashes_offset");
            for (int k : new int[] {5000, 19999, 30000, 30001}) {
                try (ResultSet rs = s.executeQuery(push(k, k))) {
                    rs.next();
                    assertEquals(k < 20000 ? 1 : 0, rs.getLong(1), "key " + k);
                }
            }
            long pkRead = tuplesRead(s, "txn_hashes_pkey") - pkBefore;
            assertEquals(seqBefore, seqScans(s), "the one-item probe scanned exactly.txn_hashes sequentially");
            assertEquals(0, tuplesRead(s, "txn_hashes_offset") - offsetBefore, "the one-item probe walked txn_hashes_offset");
            assertTrue(pkRead >= 2 && pkRead <= 12, "4 one-item pushes (2 stored) should read about one key each, read " + pkRead);
        }
    }

    @Test
    void aSegmentOfNewKeysIsProbedOnceNotFirstWithoutTheLockAndThenUnderIt() throws Exception {
        String db = TestDatabase.createMigratedDatabase();
        try (Connection c = DriverManager.getConnection(TestDatabase.jdbcUrl(db), "postgres", "");
             Statement s = c.createStatement()) {
            s.execute("SET stats_fetch_consistency = none");
            s.execute(push(0, 999));
            s.execute(push(1000, 1099));
            long before = indexScans(s, "txn_hashes_pkey");
            // 100 new keys: the first one is not stored, so the lock-free look is not tried and
            // only the probe under the lock descends once per hash
            try (ResultSet rs = s.executeQuery(push(2000, 2099))) {
                rs.next();
                assertEquals(0, rs.getLong(1));
            }
            long scans = indexScans(s, "txn_hashes_pkey") - before;
            assertTrue(scans >= 100 && scans <= 120, "100 new keys should be probed once each, scans " + scans);
            // a segment of stored keys is still answered by the look
            try (ResultSet rs = s.executeQuery(push(500, 599))) {
                rs.next();
                assertEquals(100, rs.getLong(1));
            }
        }
    }

    @Test
    void retentionPurgeWalksTheOffsetIndex() throws Exception {
        String db = TestDatabase.createMigratedDatabase();
        try (Connection c = DriverManager.getConnection(TestDatabase.jdbcUrl(db), "postgres", "");
             Statement s = c.createStatement()) {
            s.execute("SET stats_fetch_consistency = none");
            s.execute(push(0, 999));
            // generic plans, as a long-lived connection ends up with: the purge's bounds are then
            // parameters, and only a stated "offset" >= 0 lets it use the partial index
            s.execute("SET plan_cache_mode = force_generic_plan");
            s.execute("UPDATE exactly.queues SET retention_seconds = 60, dedup_window_seconds = 60");
            s.execute("UPDATE exactly.messages SET created_at = now() - interval '1 hour'");
            s.execute("UPDATE exactly.txn_hashes SET created_at = now() - interval '1 hour'");
            long before = tuplesRead(s, "txn_hashes_offset");
            long purged = 0;
            boolean more = true;
            while (more) {
                try (ResultSet rs = s.executeQuery("SELECT purged_hashes, more FROM exactly.purge_partition("
                        + "(SELECT id FROM exactly.partitions), 400)")) {
                    rs.next();
                    purged += rs.getLong(1);
                    more = rs.getBoolean(2);
                }
            }
            assertEquals(1000, purged);
            assertTrue(tuplesRead(s, "txn_hashes_offset") - before >= 1000,
                    "the purge walk did not use txn_hashes_offset");
        }
    }

    @Test
    void theSegmentProbeStaysAKeyLookupOnAPlanMadeWhileTheTableLookedEmpty() throws Exception {
        assertProbeIsKeyLookups(Path.SEGMENT_BY_SEGMENT);
    }

    @Test
    void theMultiPartitionProbeStaysAKeyLookupOnAPlanMadeWhileTheTableLookedEmpty() throws Exception {
        assertProbeIsKeyLookups(Path.ALL_SEGMENTS_AT_ONCE);
    }

    @Test
    void aBundleFindsEachPartitionByItsWholeNameOnAPlanMadeWhileTheNamesLookedEmpty() throws Exception {
        String db = TestDatabase.createMigratedDatabase();
        try (Connection c = DriverManager.getConnection(TestDatabase.jdbcUrl(db), "postgres", "");
             Statement s = c.createStatement()) {
            s.execute("SET stats_fetch_consistency = none");
            s.execute("VACUUM ANALYZE exactly.queues, exactly.partition_names");
            // the connection's first bundle plans the name lookup (two partitions of queue plan)
            s.execute(pushTwo(-10, -1));
            s.execute("SELECT exactly.ensure_partitions(array_fill('plan'::text, ARRAY[500]), "
                    + "(SELECT array_agg('n' || i) FROM generate_series(1, 500) i))");
            // 100 one-item segments, each naming one of the queue's 502 partitions
            String bundle = "SELECT count(*) FROM exactly.push_bundle(array_fill('plan'::text, ARRAY[100]), "
                    + "(SELECT array_agg('n' || (i * 5)) FROM generate_series(1, 100) i), array_fill(-1::bigint, ARRAY[100]), "
                    + "array_fill(1, ARRAY[100]), (SELECT array_agg(decode(md5('name' || i), 'hex')) FROM generate_series(1, 100) i), "
                    + "array_fill(true, ARRAY[100]), (SELECT array_agg(gen_random_uuid()) FROM generate_series(1, 100)), "
                    + "(SELECT array_agg('name' || i) FROM generate_series(1, 100) i), array_fill('\\x31'::bytea, ARRAY[100]), "
                    + "array_fill(NULL::text, ARRAY[100]), array_fill(NULL::text, ARRAY[100]), array_fill(NULL::text, ARRAY[100]))";
            long before = tuplesRead(s, "partition_names_pkey");
            try (ResultSet rs = s.executeQuery(bundle)) {
                rs.next();
                assertEquals(100, rs.getLong(1));
            }
            long read = tuplesRead(s, "partition_names_pkey") - before;
            assertTrue(read <= 300, "100 names should read about one key each, read " + read);
        }
    }
}
