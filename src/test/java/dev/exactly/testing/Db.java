package dev.exactly.testing;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** Direct reads of the running test application's database (JDBC), for counting what was stored. */
public final class Db {

    private Db() {
    }

    /** Runs a query whose first column of the first row is a number, e.g. a count. */
    public static long number(String sql) {
        try (Connection c = AppDatabase.connect();
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Runs a statement. */
    public static void execute(String sql) {
        try (Connection c = AppDatabase.connect();
             Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Rows in exactly.messages plus rows in exactly.txn_hashes plus the sum of allocator watermarks. */
    public static long writeFootprint() {
        return number("SELECT (SELECT count(*) FROM exactly.messages) + (SELECT count(*) FROM exactly.txn_hashes) "
                + "+ (SELECT coalesce(sum(last_offset + 1), 0) FROM exactly.partitions)");
    }
}
