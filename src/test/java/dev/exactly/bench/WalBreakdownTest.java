package dev.exactly.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The floor phase's reading of a duplicate cell's WAL (pg_walinspect, on the tests' embedded
 * PostgreSQL): a write to the measured database's own table is counted; the WAL a VACUUM of
 * pg_statistic writes after an ANALYZE (what an autovacuum wrote inside the cell), a checkpoint and
 * a write in another database are excluded; the classes add up to the range; and the phase's figure
 * per duplicate push is the counted WAL, not the server's.
 */
class WalBreakdownTest {

    private static String measured;
    private static String other;

    @BeforeAll
    static void databases() throws SQLException {
        measured = TestDatabase.createDatabase();
        other = TestDatabase.createDatabase();
        for (String db : new String[] {measured, other}) {
            try (Connection c = connect(db); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (id bigint PRIMARY KEY, v text)");
            }
        }
    }

    private static Connection connect(String db) throws SQLException {
        return DriverManager.getConnection(TestDatabase.jdbcUrl(db), "postgres", "");
    }

    /** The WAL insert position (the write position may lag: the tests' server commits without a flush). */
    private static String lsn(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT pg_current_wal_insert_lsn()::text")) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** The insert position, then a flush of the WAL up to it (pg_walinspect reads flushed WAL only). */
    private static String flushedLsn(Statement s) throws SQLException {
        String at = lsn(s);
        try (Connection c = connect("postgres"); Statement f = c.createStatement()) {
            f.execute("SET synchronous_commit = on");
            // a transaction that wrote WAL commits with a flush, of all WAL before it too
            f.execute("SELECT pg_logical_emit_message(true, 'walbreakdowntest', '')");
        }
        return at;
    }

    private static long bytes(Statement s, String from, String to) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT pg_wal_lsn_diff('" + to + "', '" + from + "')::bigint")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The classes add up to the range, less a WAL page header (24 bytes, 40 at a segment's start) it began on. */
    private static void assertAddsUp(long range, WalBreakdown.Result r) {
        long gap = range - r.counted() - r.excluded();
        assertTrue(gap == 0 || gap == 24 || gap == 40, gap + " bytes not in a record: " + r.describe());
    }

    private static Set<String> of(WalBreakdown.Result r, String kind) {
        return r.parts().stream().filter(p -> p.kind().equals(kind)).map(WalBreakdown.Part::record).collect(Collectors.toSet());
    }

    @Test
    void aWriteToTheMeasuredDatabaseIsCounted() throws SQLException {
        try (Connection c = connect(measured); Statement s = c.createStatement()) {
            WalBreakdown w = WalBreakdown.of(c);
            String a = lsn(s);
            s.execute("INSERT INTO t SELECT g, 'x' FROM generate_series(1, 100) g");
            String b = flushedLsn(s);
            WalBreakdown.Result r = w.read(a, b);
            assertTrue(of(r, "counted").containsAll(Set.of("Heap/INSERT", "Transaction/COMMIT")), r.describe());
            assertTrue(r.counted() > 100 * 30, r.describe());
            assertAddsUp(bytes(s, a, b), r);
        }
    }

    @Test
    void vacuumingPgStatisticAfterAnAnalyzeIsExcluded() throws SQLException {
        try (Connection c = connect(measured); Statement s = c.createStatement()) {
            WalBreakdown w = WalBreakdown.of(c);
            s.execute("INSERT INTO t SELECT g, md5(g::text) FROM generate_series(1001, 3000) g");
            s.execute("ANALYZE");
            s.execute("ANALYZE"); // the first ANALYZE's pg_statistic rows are now dead
            String a = lsn(s);
            s.execute("VACUUM pg_catalog.pg_statistic");
            String b = flushedLsn(s);
            WalBreakdown.Result r = w.read(a, b);
            assertTrue(of(r, "catalogs").stream().anyMatch(x -> x.startsWith("Heap2/PRUNE")), r.describe());
            assertEquals(0, r.counted(), r.describe());
            assertAddsUp(bytes(s, a, b), r);
        }
    }

    @Test
    void aCheckpointAndAWriteInAnotherDatabaseAreExcluded() throws SQLException {
        try (Connection c = connect(measured); Statement s = c.createStatement();
             Connection o = connect(other); Statement os = o.createStatement()) {
            WalBreakdown w = WalBreakdown.of(c);
            os.execute("BEGIN");
            os.execute("INSERT INTO t SELECT g, 'x' FROM generate_series(1, 50) g");
            String a = lsn(s);
            os.execute("INSERT INTO t SELECT g, 'x' FROM generate_series(51, 100) g");
            s.execute("CHECKPOINT");
            String b = flushedLsn(s);
            os.execute("ROLLBACK");
            WalBreakdown.Result r = w.read(a, b);
            assertTrue(of(r, "other databases").contains("Heap/INSERT"), r.describe());
            assertTrue(of(r, "server").contains("XLOG/CHECKPOINT_ONLINE"), r.describe());
            assertEquals(0, r.counted(), r.describe());
        }
    }

    @Test
    void anEmptyRangeHasNoWal() throws SQLException {
        try (Connection c = connect(measured); Statement s = c.createStatement()) {
            String a = lsn(s);
            WalBreakdown.Result r = WalBreakdown.of(c).read(a, a);
            assertEquals(0, r.counted() + r.excluded());
            assertEquals("no WAL", r.describe());
        }
    }

    @Test
    void theDuplicatesFigureIsTheCountedWal() {
        FloorPhase.Result f = new FloorPhase.Result();
        FloorPhase.Cell dup = new FloorPhase.Cell("duplicate", "duplicates");
        f.cells.put("duplicate", dup);
        dup.pushes = 79_000;
        dup.walBytes = 254_000; // an autovacuum of pg_statistic with full-page images, inside the cell
        dup.countedWalBytes = 0;
        dup.excludedWal.put("catalogs Heap2/PRUNE_VACUUM_SCAN", new long[] {37, 254_000, 250_000});
        assertEquals(0, f.walPerDuplicate());
        assertTrue(dup.excludedWal().contains("catalogs Heap2/PRUNE_VACUUM_SCAN ×37 254000 B (250000 B full-page images)"),
                dup.excludedWal());
        dup.countedWalBytes = Double.NaN; // no pg_walinspect: the server's WAL, all of it
        assertEquals(254_000.0 / 79_000, f.walPerDuplicate(), 1e-9);
    }
}
