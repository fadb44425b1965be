package dev.exactly.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * One embedded PostgreSQL per test JVM (io.zonky.test), shared by every test. Each caller of
 * {@link #createDatabase()} gets a database of its own on it.
 */
public final class TestDatabase {

    private static EmbeddedPostgres postgres;
    private static int databases;

    private TestDatabase() {
    }

    /** The server, started on first use and stopped when the JVM exits. */
    public static synchronized EmbeddedPostgres server() {
        if (postgres == null) {
            try {
                postgres = EmbeddedPostgres.builder().setServerConfig("max_connections", "300").start();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            EmbeddedPostgres started = postgres;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    started.close();
                } catch (IOException ignored) {
                    // the JVM is going away
                }
            }));
        }
        return postgres;
    }

    /** @return the name of a new, empty database on the shared server */
    public static synchronized String createDatabase() {
        String name = "exactly_test_" + (++databases);
        try (Connection c = server().getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + name);
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return name;
    }

    /**
     * Creates a database and applies the project's migrations (sql/) to it with Flyway, as the
     * service does at start-up.
     *
     * @return the database's name
     */
    public static String createMigratedDatabase() {
        String name = createDatabase();
        org.flywaydb.core.Flyway.configure()
                .dataSource(jdbcUrl(name), "postgres", "")
                .schemas("exactly").defaultSchema("exactly").createSchemas(true)
                .locations("classpath:db/migration") // sql/ as the build ships it (without sql/citus)
                .load().migrate();
        return name;
    }

    /**
     * A Vert.x pool of its own to a database on the shared server, as a separate engine
     * instance (another function instance) would have.
     *
     * @param vertx   the Vert.x instance to run it on
     * @param db      database name
     * @param maxSize most connections
     */
    public static io.vertx.mutiny.sqlclient.Pool pool(io.vertx.mutiny.core.Vertx vertx, String db, int maxSize) {
        io.vertx.pgclient.PgConnectOptions connect = io.vertx.pgclient.PgConnectOptions.fromUri(reactiveUrl(db))
                .setUser("postgres").setCachePreparedStatements(true);
        io.vertx.sqlclient.Pool core = io.vertx.pgclient.PgBuilder.pool()
                .with(new io.vertx.sqlclient.PoolOptions().setMaxSize(maxSize))
                .connectingTo(connect).using(vertx.getDelegate()).build();
        return io.vertx.mutiny.sqlclient.Pool.newInstance(core);
    }

    /** A reactive-client URL for a database on the shared server. */
    public static String reactiveUrl(String database) {
        return "postgresql://127.0.0.1:" + server().getPort() + "/" + database;
    }

    /** A JDBC URL for a database on the shared server. */
    public static String jdbcUrl(String database) {
        return "jdbc:" + reactiveUrl(database);
    }
}
