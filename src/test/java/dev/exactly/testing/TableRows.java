package dev.exactly.testing;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The number of rows in every table of the application's schema, to tell whether anything was written;
 * but the webhook sources' figures ({@link #FIGURES}), which a refused delivery to an enabled source adds
 * to by design (one row per source and minute), checked on their own where it matters.
 */
public final class TableRows {

    /** The table left out: per-source webhook figures, counted for refused deliveries too. */
    public static final String FIGURES = "webhook_minutes";

    private TableRows() {
    }

    /**
     * @param c a connection to the application's database
     * @return table name to row count, for every table of schema exactly (partitions of a
     *         partitioned table are counted through their parent only), {@link #FIGURES} left out
     * @throws SQLException on a database error
     */
    public static Map<String, Long> of(Connection c) throws SQLException {
        List<String> tables = new ArrayList<>();
        try (Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                     + " WHERE n.nspname = 'exactly' AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY 1")) {
            while (r.next()) {
                if (!r.getString(1).equals(FIGURES)) {
                    tables.add(r.getString(1));
                }
            }
        }
        Map<String, Long> out = new TreeMap<>();
        for (String t : tables) {
            try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT count(*) FROM exactly.\"" + t + "\"")) {
                r.next();
                out.put(t, r.getLong(1));
            }
        }
        return out;
    }
}
