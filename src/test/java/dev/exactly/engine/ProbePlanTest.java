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
 * The probe is an index lookup per incoming hash, never a scan of the window: after a window of
 * 20,000 hashes is stored (and never analysed), a probing push reads exactly.txn_hashes only
 * through its index.
 */
class ProbePlanTest {

    private static final String PUSH = "SELECT count(*) FROM exactly.push_bundle(ARRAY['plan'], ARRAY['p'], ARRAY[-1]::bigint[], "
            + "ARRAY[%d], (SELECT array_agg(decode(md5(i::text), 'hex')) FROM generate_series(%d, %d) i), "
            + "array_fill(true, ARRAY[%d]), (SELECT array_agg(gen_random_uuid()) FROM generate_series(1, %d)), "
            + "(SELECT array_agg(i::text) FROM generate_series(%d, %d) i), array_fill('\\x31'::bytea, ARRAY[%d]), "
            + "array_fill(NULL::text, ARRAY[%d]), array_fill(NULL::text, ARRAY[%d]), array_fill(NULL::text, ARRAY[%d]))";

    private static String push(int from, int to) {
        int n = to - from + 1;
        return String.format(PUSH, n, from, to, n, n, from, to, n, n, n, n);
    }

    private static long[] scans(Statement s) throws Exception {
        s.execute("SELECT pg_stat_force_next_flush()");
        try (ResultSet rs = s.executeQuery("SELECT seq_scan, idx_scan FROM pg_stat_user_tables "
                + "WHERE schemaname = 'exactly' AND relname = 'txn_hashes'")) {
            rs.next();
            return new long[] {rs.getLong(1), rs.getLong(2)};
        }
    }

    @Test
    void aProbingPushNeverScansTheHashTable() throws Exception {
        String db = TestDatabase.createMigratedDatabase();
        try (Connection c = DriverManager.getConnection(TestDatabase.jdbcUrl(db), "postgres", "");
             Statement s = c.createStatement()) {
            s.execute("SET stats_fetch_consistency = none");
            for (int i = 0; i < 20; i++) {
                s.execute(push(i * 1000, i * 1000 + 999));
            }
            long[] before = scans(s);
            // 50 hashes already stored (duplicates) and 50 new ones
            try (ResultSet rs = s.executeQuery("SELECT count(*) FILTER (WHERE duplicate) FROM exactly.push_bundle("
                    + push(19950, 20049).substring("SELECT count(*) FROM exactly.push_bundle(".length()))) {
                rs.next();
                assertEquals(50, rs.getLong(1));
            }
            long[] after = scans(s);
            assertEquals(before[0], after[0], "the probe scanned exactly.txn_hashes sequentially");
            assertTrue(after[1] > before[1], "the probe did not use the index");
        }
    }
}
