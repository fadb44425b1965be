package dev.exactly.isolation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs the isolation specs of {@code src/test/isolation} with PostgreSQL's own
 * {@code pg_isolation_regress} (which runs {@code isolationtester} per spec and diffs its output
 * with {@code expected/<spec>.out}), as PostgreSQL's source tree documents in
 * src/test/isolation/README.
 *
 * <p>The tools come with the embedded PostgreSQL binaries (io.zonky), unpacked at the first
 * server start into a directory named after the binaries' hash. They are found through the
 * running server itself: the {@code pg_config} system view reports the installation's paths
 * relative to its executable, so {@code PGXS} names {@code <pkglib>/pgxs/src/makefiles/pgxs.mk}
 * and the tools are in {@code <pkglib>/pgxs/src/test/isolation/}; {@code LIBDIR} holds the
 * bundled libpq they link against. io.zonky marks only bin/ executable when it unpacks, so the
 * two tools are copied to target/isolation/bin (pg_isolation_regress runs the isolationtester
 * next to it) and made executable there; the shared unpacked tree is left as it is.
 */
final class IsolationRegress {

    /** The suite's sources: specs/, expected/, the schedule; and the Citus-only expected outputs. */
    static final Path SOURCES = Path.of("src", "test", "isolation");

    /** Longest whole run; a spec whose step never ends is cut by isolationtester itself sooner. */
    private static final long RUN_MINUTES = 10;

    private final Path tool;
    private final Path libDir;

    private IsolationRegress(Path tool, Path libDir) {
        this.tool = tool;
        this.libDir = libDir;
    }

    /**
     * Locates pg_isolation_regress of the server a connection is open to (which must run on
     * this machine: the embedded one).
     *
     * @param superuser a superuser connection (the pg_config view is readable by superusers only)
     * @return the tools
     * @throws IllegalStateException when the installation does not ship them
     */
    static IsolationRegress of(Connection superuser) throws SQLException, IOException {
        Map<String, String> config = new HashMap<>();
        try (Statement st = superuser.createStatement();
             ResultSet rs = st.executeQuery("SELECT name, setting FROM pg_config WHERE name IN ('PGXS', 'LIBDIR')")) {
            while (rs.next()) {
                config.put(rs.getString(1), rs.getString(2));
            }
        }
        Path pgxs = Path.of(config.get("PGXS")); // <pkglib>/pgxs/src/makefiles/pgxs.mk
        Path shipped = pgxs.getParent().getParent().resolve(Path.of("test", "isolation"));
        Path bin = Files.createDirectories(Path.of("target", "isolation", "bin")).toAbsolutePath();
        for (String name : List.of("pg_isolation_regress", "isolationtester")) {
            Path from = shipped.resolve(name);
            if (!Files.isRegularFile(from)) {
                throw new IllegalStateException("the PostgreSQL installation does not ship " + from);
            }
            Path to = bin.resolve(name);
            Files.copy(from, to, StandardCopyOption.REPLACE_EXISTING);
            Files.setPosixFilePermissions(to, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        return new IsolationRegress(bin.resolve("pg_isolation_regress"), Path.of(config.get("LIBDIR")));
    }

    /**
     * A server to run the specs on.
     *
     * @param host     host name or address
     * @param port     TCP port
     * @param user     user name
     * @param password password, or null
     * @param database a migrated database the suite may use (each spec's teardown empties
     *                 exactly's tables)
     */
    record Target(String host, int port, String user, String password, String database) {
    }

    /**
     * The outcome of a run.
     *
     * @param exitCode pg_isolation_regress's status: 0 all passed, 1 some failed, 2 could not run
     * @param output   its summary (one line per spec)
     * @param diffs    regression.diffs: for each failed spec, the diff of expected and actual output
     */
    record Result(int exitCode, String output, String diffs) {
    }

    /**
     * Runs every spec of the schedule, one after the other.
     *
     * @param target      where
     * @param expectedDir the directory holding expected/ (SOURCES, or a copy with overrides)
     * @param outputDir   where results/ and regression.diffs go (emptied first)
     * @return the outcome
     */
    Result run(Target target, Path expectedDir, Path outputDir) throws IOException, InterruptedException {
        deleteTree(outputDir);
        Files.createDirectories(outputDir);
        List<String> cmd = new ArrayList<>(List.of(tool.toString(), "--use-existing",
                "--host=" + target.host(), "--port=" + target.port(), "--user=" + target.user(),
                "--dbname=" + target.database(),
                "--inputdir=" + SOURCES.toAbsolutePath(), "--expecteddir=" + expectedDir.toAbsolutePath(),
                "--outputdir=" + outputDir.toAbsolutePath(),
                "--schedule=" + SOURCES.resolve("isolation_schedule").toAbsolutePath()));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(outputDir.resolve("run.log").toFile());
        String ld = pb.environment().get("LD_LIBRARY_PATH");
        // the bundled libpq, not whatever the machine has (or lacks)
        pb.environment().put("LD_LIBRARY_PATH", libDir + (ld == null || ld.isEmpty() ? "" : ":" + ld));
        if (target.password() != null) {
            pb.environment().put("PGPASSWORD", target.password());
        }
        Process p = pb.start();
        if (!p.waitFor(RUN_MINUTES, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IllegalStateException("pg_isolation_regress did not finish within " + RUN_MINUTES + " minutes");
        }
        Path diffs = outputDir.resolve("regression.diffs");
        return new Result(p.exitValue(), Files.readString(outputDir.resolve("run.log"), StandardCharsets.UTF_8),
                Files.exists(diffs) ? Files.readString(diffs, StandardCharsets.UTF_8) : "");
    }

    /**
     * The expected outputs for a Citus target: {@code expected/} with the files of
     * {@code citus/expected/} (where a Citus cluster's output legitimately differs) laid over it.
     *
     * @param into a scratch directory; expected/ is written under it
     * @return {@code into}, for {@link #run}'s expectedDir
     */
    static Path citusExpected(Path into) throws IOException {
        deleteTree(into);
        Path out = Files.createDirectories(into.resolve("expected"));
        for (Path dir : List.of(SOURCES.resolve("expected"), SOURCES.resolve(Path.of("citus", "expected")))) {
            if (Files.isDirectory(dir)) {
                try (Stream<Path> files = Files.list(dir)) {
                    for (Path f : (Iterable<Path>) files::iterator) {
                        Files.copy(f, out.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
                    }
                }
            }
        }
        return into;
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach(f -> {
                try {
                    Files.delete(f);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
