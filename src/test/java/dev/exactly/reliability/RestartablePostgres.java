package dev.exactly.reliability;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A PostgreSQL of the fault tests' own, which they may stop, crash and start again: never the
 * shared test server, never the machine's PostgreSQL. io.zonky's embedded binaries create the
 * cluster once (a data directory under target/, a port picked free once and then kept, so the
 * server comes back where the clients look for it); from then on {@code pg_ctl} of those same
 * binaries stops ({@code -m fast}: sessions are terminated, like a restart by an operator),
 * crashes ({@code -m immediate}: no shutdown checkpoint, crash recovery at the next start) and
 * starts it. synchronous_commit is on (io.zonky turns it off), as a server that answers "queued"
 * must have it, so nothing committed is lost by a crash.
 *
 * <p>All state is the data directory, the port and the binaries' directory, kept in JVM-wide
 * system properties: Quarkus loads test classes (and test profiles) in several class loaders,
 * and each of them must drive the same server.
 */
public final class RestartablePostgres {

    private static final String KEY = "reliability-test.restartable-postgres.";
    private static final String[] SERVER_CONFIG = {
        "listen_addresses=127.0.0.1", "synchronous_commit=on", "max_connections=200", "timezone=UTC"
    };

    private final Path dataDir;
    private final int port;
    private final Path binDir;

    private RestartablePostgres(Path dataDir, int port, Path binDir) {
        this.dataDir = dataDir;
        this.port = port;
        this.binDir = binDir;
    }

    /** The JVM's one restartable server, created and started on first use (stopped when the JVM exits). */
    public static RestartablePostgres shared() {
        synchronized (System.getProperties()) {
            if (System.getProperty(KEY + "dir") == null) {
                create();
            }
            return new RestartablePostgres(Path.of(System.getProperty(KEY + "dir")),
                    Integer.parseInt(System.getProperty(KEY + "port")), Path.of(System.getProperty(KEY + "bin")));
        }
    }

    private static void create() {
        try {
            Path target = Path.of("target").toAbsolutePath();
            Files.createDirectories(target);
            removeStaleDirectories(target);
            Path dir = target.resolve("reliability-pg-" + UUID.randomUUID());
            int port;
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort();
            }
            // io.zonky extracts the binaries and runs initdb; then it steps aside
            EmbeddedPostgres.Builder b = EmbeddedPostgres.builder().setDataDirectory(dir).setCleanDataDirectory(false)
                    .setPort(port);
            for (String kv : SERVER_CONFIG) {
                String[] p = kv.split("=", 2);
                b.setServerConfig(p[0], p[1]);
            }
            Path bin;
            try (EmbeddedPostgres pg = b.start()) {
                long pid = Long.parseLong(Files.readAllLines(dir.resolve("postmaster.pid")).get(0).trim());
                bin = Path.of(ProcessHandle.of(pid).orElseThrow().info().command().orElseThrow()).getParent();
            }
            System.setProperty(KEY + "dir", dir.toString());
            System.setProperty(KEY + "port", Integer.toString(port));
            System.setProperty(KEY + "bin", bin.toString());
            RestartablePostgres pg = new RestartablePostgres(dir, port, bin);
            pg.start();
            Runtime.getRuntime().addShutdownHook(new Thread(pg::destroy, "restartable-postgres-stop"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Data directories of earlier runs whose server is gone. */
    private static void removeStaleDirectories(Path target) throws IOException {
        try (Stream<Path> dirs = Files.list(target)) {
            for (Path d : dirs.filter(p -> p.getFileName().toString().startsWith("reliability-pg-")).toList()) {
                if (!Files.exists(d.resolve("postmaster.pid"))) {
                    deleteTree(d);
                }
            }
        }
    }

    private static void deleteTree(Path d) throws IOException {
        try (Stream<Path> all = Files.walk(d)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    private void destroy() {
        try {
            pgCtl("stop", "-m", "immediate");
            deleteTree(dataDir);
        } catch (RuntimeException | IOException ignored) {
            // the JVM is going away
        }
    }

    /** The TCP port on 127.0.0.1; the same across restarts. */
    public int port() {
        return port;
    }

    /** True while a postmaster runs on the data directory. */
    public boolean isRunning() {
        return Files.exists(dataDir.resolve("postmaster.pid"));
    }

    /** Starts the server if it is not running and waits until it accepts connections. */
    public synchronized void start() {
        if (isRunning()) {
            return;
        }
        List<String> opts = new ArrayList<>();
        opts.add("-p " + port);
        for (String kv : SERVER_CONFIG) {
            opts.add("-c " + kv);
        }
        pgCtl("start", "-w", "-t", "120", "-l", dataDir.resolveSibling(dataDir.getFileName() + ".log").toString(),
                "-o", String.join(" ", opts));
    }

    /** Fast shutdown: open sessions are terminated (57P01) and rolled back, a checkpoint is written. */
    public synchronized void stop() {
        if (isRunning()) {
            pgCtl("stop", "-w", "-t", "120", "-m", "fast");
        }
    }

    /**
     * Immediate shutdown, as a crash: every process quits at once without a checkpoint; the next
     * start replays the write-ahead log.
     */
    public synchronized void crash() {
        if (isRunning()) {
            pgCtl("stop", "-w", "-t", "120", "-m", "immediate");
        }
    }

    /**
     * Stalls the whole server: SIGSTOP to the postmaster and every process of it (its backends, the
     * checkpointer, ...), as a frozen machine or a network partition would leave it. Connections stay
     * open and the kernel still accepts new TCP connections on its port, but nothing is answered,
     * not even a cancel request, until {@link #resume()}.
     *
     * @return how many processes were stopped
     */
    public synchronized int stall() {
        return signalAll("STOP");
    }

    /** Lets a {@link #stall() stalled} server run again (SIGCONT to the same processes); nothing when none is stalled. */
    public synchronized int resume() {
        return signalAll("CONT");
    }

    private int signalAll(String signal) {
        if (!isRunning()) {
            return 0;
        }
        long pid;
        try {
            pid = Long.parseLong(Files.readAllLines(dataDir.resolve("postmaster.pid")).get(0).trim());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> cmd = new ArrayList<>(List.of("kill", "-" + signal, Long.toString(pid)));
        ProcessHandle.of(pid).ifPresent(p -> p.descendants().forEach(d -> cmd.add(Long.toString(d.pid()))));
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            // a backend that ended meanwhile is "No such process": only the postmaster must have been signalled
            if (!p.waitFor(30, TimeUnit.SECONDS) || (p.exitValue() != 0 && !out.contains("No such process"))) {
                throw new IllegalStateException(String.join(" ", cmd) + " failed: " + out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return cmd.size() - 2;
    }

    private void pgCtl(String... args) {
        List<String> cmd = new ArrayList<>();
        if ("root".equals(System.getProperty("user.name"))) {
            // PostgreSQL refuses to run as root; like io.zonky, run it in a user namespace of its own
            cmd.addAll(List.of("unshare", "-U"));
        }
        cmd.add(binDir.resolve("pg_ctl").toString());
        cmd.add("-D");
        cmd.add(dataDir.toString());
        cmd.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(180, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("pg_ctl " + String.join(" ", args) + " failed: " + out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A JDBC URL for a database on this server. */
    public String jdbcUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
    }

    /** A reactive-client URL for a database on this server, reached through {@code viaPort} (a proxy, or {@link #port()}). */
    public String reactiveUrl(String database, int viaPort) {
        return "postgresql://127.0.0.1:" + viaPort + "/" + database;
    }

    /**
     * Starts this server if need be, creates {@code database} on it unless it exists (a test
     * profile's overrides are read once per class loader Quarkus uses), and answers the
     * application's datasource settings for it, to which a profile adds its own.
     */
    public Map<String, String> datasourceOf(String database) {
        start();
        try (Connection c = connect("postgres"); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_database WHERE datname = '" + database + "'")) {
            rs.next();
            if (rs.getInt(1) == 0) {
                s.execute("CREATE DATABASE " + database);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        Map<String, String> settings = new HashMap<>();
        settings.put("quarkus.datasource.reactive.url", reactiveUrl(database, port()));
        settings.put("quarkus.datasource.username", "postgres");
        settings.put("quarkus.datasource.password", "");
        return settings;
    }

    /** A JDBC connection as the superuser postgres. */
    public Connection connect(String database) throws SQLException {
        return DriverManager.getConnection(jdbcUrl(database), "postgres", "");
    }

    /**
     * Creates (or recreates) a database and applies the project's migrations (sql/) with Flyway,
     * as the service does at start-up.
     */
    public void createMigratedDatabase(String name) {
        try (Connection c = connect("postgres"); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        org.flywaydb.core.Flyway.configure()
                .dataSource(jdbcUrl(name), "postgres", "")
                .schemas("exactly").defaultSchema("exactly").createSchemas(true)
                .locations("classpath:db/migration") // sql/ as the build ships it (without sql/citus)
                .load().migrate();
    }

    /**
     * pg_terminate_backend of every client backend on {@code database} except the caller's own
     * (the service's pooled connections; the server rolls back what they were doing).
     *
     * @return how many backends were terminated
     */
    public int terminateBackends(String database) {
        try (Connection c = connect("postgres"); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity "
                     + "WHERE datname = '" + database + "' AND backend_type = 'client backend' AND pid <> pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Runs a query whose first column of the first row is a number, e.g. a count. */
    public long number(String database, String sql) {
        try (Connection c = connect(database); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
