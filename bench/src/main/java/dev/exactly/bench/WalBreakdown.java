package dev.exactly.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What the WAL of an LSN range was, read back with pg_walinspect (PostgreSQL 16 and later, the
 * extension installed in the database of the connection it is given; superuser or pg_read_server_files):
 * every record of the range, by resource manager and record type, in one of four classes by the
 * blocks it references:
 * <ul>
 *   <li>{@code catalogs}: every block in a system catalog (relfilenode below 16384, the first
 *       number initdb leaves to user objects), such as a catalog page pruned on access by a backend
 *       that read it while planning: the server's bookkeeping, not a write of the statements run;</li>
 *   <li>{@code other databases}: every block in a database other than the one measured;</li>
 *   <li>{@code server}: no block, resource manager XLOG or Standby (checkpoints, running
 *       transactions' snapshots for standbys, segment switches);</li>
 *   <li>{@code counted}: everything else: records on the measured database's own relations,
 *       transaction commits and aborts (from any database: a commit does not name one), logical
 *       messages.</li>
 * </ul>
 * The record's size is its extent in the WAL (end LSN − start LSN, page headers it crosses
 * included), so the classes add up to the range's bytes, less a page header the range began on.
 */
final class WalBreakdown {

    /** One class and record type: its records, bytes and the full-page images among those bytes. */
    record Part(String kind, String record, long count, long bytes, long fpiBytes) {
    }

    /** The parts of one range, largest first. */
    record Result(List<Part> parts) {
        /** Bytes of the class {@code counted}. */
        long counted() {
            return parts.stream().filter(p -> p.kind().equals("counted")).mapToLong(Part::bytes).sum();
        }

        /** Bytes of every other class. */
        long excluded() {
            return parts.stream().filter(p -> !p.kind().equals("counted")).mapToLong(Part::bytes).sum();
        }

        /** The parts as one line: "kind record ×count bytes B (fpi B FPI)", comma-separated. */
        String describe() {
            List<String> out = new ArrayList<>();
            for (Part p : parts) {
                out.add(String.format(Locale.ROOT, "%s %s ×%d %d B%s", p.kind(), p.record(), p.count(), p.bytes(),
                        p.fpiBytes() > 0 ? " (" + p.fpiBytes() + " B full-page images)" : ""));
            }
            return out.isEmpty() ? "no WAL" : String.join(", ", out);
        }
    }

    private final Connection c;

    private WalBreakdown(Connection c) {
        this.c = c;
    }

    /**
     * The reader for the server of a connection, after installing pg_walinspect in its database.
     *
     * @throws SQLException when the extension is not available (PostgreSQL before 16, or not
     *                      installed with the server) or cannot be created by this user
     */
    static WalBreakdown of(Connection c) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("CREATE EXTENSION IF NOT EXISTS pg_walinspect");
        }
        return new WalBreakdown(c);
    }

    /** The WAL from {@code from} to {@code to} (LSNs as text, X/Y), by class and record type; none for an empty range. */
    Result read(String from, String to) throws SQLException {
        if (FloorPhase.lsn(to) <= FloorPhase.lsn(from)) {
            return new Result(List.of()); // pg_walinspect refuses a range that does not end after its start
        }
        String sql = """
                WITH r AS (
                    SELECT start_lsn, end_lsn, resource_manager AS rm, record_type AS rt, fpi_length
                    FROM pg_get_wal_records_info(?::pg_lsn, ?::pg_lsn)
                ), b AS (
                    SELECT start_lsn, bool_and(relfilenode < 16384) AS catalog, bool_and(reldatabase NOT IN (0, d.oid)) AS other
                    FROM pg_get_wal_block_info(?::pg_lsn, ?::pg_lsn)
                    CROSS JOIN (SELECT oid FROM pg_database WHERE datname = current_database()) d
                    GROUP BY start_lsn
                )
                SELECT CASE WHEN b.start_lsn IS NULL AND r.rm IN ('XLOG', 'Standby') THEN 'server'
                            WHEN b.other THEN 'other databases'
                            WHEN b.catalog THEN 'catalogs'
                            ELSE 'counted' END AS kind,
                       r.rm || '/' || r.rt, count(*), sum(r.end_lsn - r.start_lsn)::bigint, sum(r.fpi_length)::bigint
                FROM r LEFT JOIN b USING (start_lsn)
                GROUP BY 1, 2
                ORDER BY 4 DESC""";
        List<Part> parts = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, from);
            ps.setString(2, to);
            ps.setString(3, from);
            ps.setString(4, to);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    parts.add(new Part(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getLong(4), rs.getLong(5)));
                }
            }
        }
        return new Result(parts);
    }
}
