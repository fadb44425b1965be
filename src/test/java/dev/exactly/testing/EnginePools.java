package dev.exactly.testing;

import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.sqlclient.Pool;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * A migrated database on the shared embedded PostgreSQL ({@link TestDatabase#createMigratedDatabase()})
 * and independent connection pools on it ({@link TestDatabase#pool}), as separate engine instances
 * would have; closing this closes the pools. For engine-level tests that build PushEngine,
 * PushRepository, the cache and fusion directly, without a Quarkus application.
 */
public final class EnginePools implements AutoCloseable {

    private static Vertx vertx;

    private final String database;
    private final List<Pool> pools = new ArrayList<>();

    private EnginePools(String database) {
        this.database = database;
    }

    /**
     * A new migrated database. Its commits do not wait for the WAL flush (synchronous_commit off):
     * durability is not what these tests examine, and it keeps the long differential runs short.
     */
    public static EnginePools migrated() {
        String db = TestDatabase.createMigratedDatabase();
        try (Connection c = DriverManager.getConnection(TestDatabase.jdbcUrl(db), "postgres", "");
             Statement st = c.createStatement()) {
            st.execute("ALTER DATABASE " + db + " SET synchronous_commit = off");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return new EnginePools(db);
    }

    private static synchronized Vertx vertx() {
        if (vertx == null) {
            vertx = Vertx.vertx();
        }
        return vertx;
    }

    /** @return the database name */
    public String database() {
        return database;
    }

    /**
     * @param maxSize pool size
     * @return a new, independent pool on this database (closed with this object)
     */
    public synchronized Pool pool(int maxSize) {
        Pool p = TestDatabase.pool(vertx(), database, maxSize);
        pools.add(p);
        return p;
    }

    @Override
    public synchronized void close() {
        for (Pool p : pools) {
            p.closeAndAwait();
        }
        pools.clear();
    }
}
