package dev.exactly.testing;

import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.pgclient.PgBuilder;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.PoolOptions;
import java.util.ArrayList;
import java.util.List;
import org.flywaydb.core.Flyway;

/**
 * A migrated database on the shared embedded PostgreSQL and independent connection pools on it,
 * as separate engine instances (function instances, servers) would have. For engine-level tests
 * that build PushEngine, PushStore and the cache directly, without a Quarkus application.
 */
public final class EnginePools implements AutoCloseable {

    private static Vertx vertx;

    private final String database;
    private final List<Pool> pools = new ArrayList<>();

    private EnginePools(String database) {
        this.database = database;
    }

    /** A new database with the project's migrations (sql/, as packaged in db/migration) applied. */
    public static EnginePools migrated() {
        String db = TestDatabase.createDatabase();
        Flyway.configure()
                .dataSource(TestDatabase.jdbcUrl(db), "postgres", "")
                .schemas("exactly").defaultSchema("exactly").createSchemas(true)
                .locations("classpath:db/migration")
                .load().migrate();
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(TestDatabase.jdbcUrl(db), "postgres", "");
             java.sql.Statement st = c.createStatement()) {
            // test speed only: a commit does not wait for the WAL flush (durability is not under test)
            st.execute("ALTER DATABASE " + db + " SET synchronous_commit = off");
        } catch (java.sql.SQLException e) {
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
        PgConnectOptions connect = new PgConnectOptions().setHost("127.0.0.1").setPort(TestDatabase.server().getPort())
                .setDatabase(database).setUser("postgres").setPassword("").setCachePreparedStatements(true);
        Pool p = PgBuilder.pool().with(new PoolOptions().setMaxSize(maxSize)).connectingTo(connect).using(vertx()).build();
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
