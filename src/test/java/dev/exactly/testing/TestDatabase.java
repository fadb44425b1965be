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

    /** A reactive-client URL for a database on the shared server. */
    public static String reactiveUrl(String database) {
        return "postgresql://127.0.0.1:" + server().getPort() + "/" + database;
    }

    /** A JDBC URL for a database on the shared server. */
    public static String jdbcUrl(String database) {
        return "jdbc:" + reactiveUrl(database);
    }
}
