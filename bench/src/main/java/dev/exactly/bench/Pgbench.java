package dev.exactly.bench;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The machine's pgbench (and the psql beside it), run as a separate process against one database:
 * N clients, one custom script, a fixed duration ({@code pgbench -n -c N -j 2 -T S -f SCRIPT}).
 * Found on PATH, else under /usr/lib/postgresql/VERSION/bin (the highest version).
 */
final class Pgbench {

    private static final Pattern PROCESSED = Pattern.compile("number of transactions actually processed: (\\d+)");
    private static final Pattern TPS = Pattern.compile("tps = ([0-9.]+)");

    /** What one pgbench run printed: transactions processed, its tps figure, and the exit status. */
    record Run(long transactions, double tps, int exitCode, String output) {
        /** Null when the run went through, else why not. */
        String problem() {
            if (exitCode != 0 || transactions <= 0) {
                return "pgbench exited with " + exitCode + " after " + transactions + " transactions: "
                        + output.strip().lines().reduce((a, b) -> b).orElse("");
            }
            return null;
        }
    }

    private final Path pgbench;
    private final Path psql;

    private Pgbench(Path pgbench, Path psql) {
        this.pgbench = pgbench;
        this.psql = psql;
    }

    /** The pgbench and psql of this machine, or empty when either is missing. */
    static Optional<Pgbench> find() {
        Optional<Path> bench = onPath("pgbench").or(() -> inPostgresLib("pgbench"));
        if (bench.isEmpty()) {
            return Optional.empty();
        }
        Path beside = bench.get().resolveSibling("psql");
        Optional<Path> psql = Files.isExecutable(beside) ? Optional.of(beside) : onPath("psql").or(() -> inPostgresLib("psql"));
        return psql.map(p -> new Pgbench(bench.get(), p));
    }

    /** Where pgbench is. */
    Path path() {
        return pgbench;
    }

    /** Where psql is. */
    Path psql() {
        return psql;
    }

    /** pgbench --version, e.g. "pgbench (PostgreSQL) 15.8". */
    String version() throws IOException, InterruptedException {
        Process p = new ProcessBuilder(pgbench.toString(), "--version").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes()).trim();
        p.waitFor();
        return out;
    }

    /**
     * Starts one run; its output (stdout and stderr) goes to {@code log}.
     *
     * @param seconds whole seconds (pgbench -T)
     */
    Process start(BenchDatabase db, String database, int clients, int seconds, Path script, Path log) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(pgbench.toString(), "-n", "-c", Integer.toString(clients), "-j", "2",
                "-T", Integer.toString(seconds), "-f", script.toString(),
                "-h", db.host(), "-p", Integer.toString(db.port()), "-U", db.user(), database));
        // bounded by -T: an interrupted suite does not leave it running for long
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /** Waits for a run started by {@link #start} and reads what it printed. */
    static Run finish(Process p, Path log) throws IOException, InterruptedException {
        int code = p.waitFor();
        String out = Files.readString(log);
        Matcher n = PROCESSED.matcher(out);
        Matcher t = TPS.matcher(out);
        return new Run(n.find() ? Long.parseLong(n.group(1)) : 0, t.find() ? Double.parseDouble(t.group(1)) : Double.NaN,
                code, out);
    }

    private static Optional<Path> onPath(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, name);
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    private static Optional<Path> inPostgresLib(String name) {
        Path lib = Path.of("/usr/lib/postgresql");
        if (!Files.isDirectory(lib)) {
            return Optional.empty();
        }
        try (Stream<Path> versions = Files.list(lib)) {
            return versions.map(v -> v.resolve("bin").resolve(name)).filter(Files::isExecutable)
                    .max(Comparator.comparingInt(Pgbench::major));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static int major(Path bin) {
        try {
            return Integer.parseInt(bin.getParent().getParent().getFileName().toString());
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
