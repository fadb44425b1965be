package dev.exactly.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The suite's floor phase (a duplicate's WAL and the single push against the database's floor,
 * {@code bench/run --only floor}): on the suite's
 * PostgreSQL, a database of its own migrated by bench/floor/migrate, the machine's pgbench with 16
 * clients running bench/floor's workload scripts, and the service in the stateless shape (cache and
 * fusion off) with 16 producers of one-item requests into one partition, the cells interleaved round
 * by round:
 * <ul>
 *   <li>duplicate: duplicate.sql, every push a retry of a committed key: WAL bytes per push
 *       (pg_current_wal_lsn, the server's; where pg_walinspect can read the range back, the
 *       target's figure counts only what {@link WalBreakdown} counts, and the rest is reported by
 *       class), commits per WAL fsync (pg_stat_wal.wal_sync), over the whole run;</li>
 *   <li>anchor: anchor.sql, lock the partition row, probe the hash, insert, as one statement (the floor);</li>
 *   <li>fresh: fresh.sql, the service's SQL for a one-item push into a known partition (push_segment by id);</li>
 *   <li>service: POST /api/v1/push over HTTP (HttpLoad), one item per request, one partition.</li>
 * </ul>
 * For anchor, fresh and service, pushes are counted by their partition's last_offset (each push
 * allocates one offset) and the database's CPU by {@link PostgresCpu}, both read at the same two
 * instants: after the warm-up (pgbench: that long after it started, once its connections are up and
 * its backends have planned; the service: before the run, its pool being warm) and one second after
 * the run ended (pgbench's backends reaped). Throughput: pgbench cells, counted pushes ÷ seconds
 * from the first reading to pgbench's exit; the service, HttpLoad's measured period. With 16
 * clients on one partition throughput is bound by the row lock, so lock held per push is
 * 1 ÷ throughput. Before each cell the two databases are vacuumed and analysed, and then their
 * pg_statistic vacuumed, so autovacuum's work (and its WAL) stays out of the measured windows;
 * the service runs with in-process maintenance off, as the Lambda shape does
 * (exactly.maintenance.enabled=false), for the same reason.
 */
final class FloorPhase {

    /** The phase's database on the suite's server. */
    static final String DATABASE = "exactly_floor";
    /** pgbench clients and HTTP producers. */
    static final int CLIENTS = 16;
    static final String SERVICE_QUEUE = "floor-service";

    /** What a cell is: a pgbench script or the service, and how its pushes are counted. */
    private record Spec(String id, String title, String script, String counter) {
    }

    private static final List<Spec> SPECS = List.of(
            new Spec("duplicate", "pgbench duplicate.sql (16 clients retry committed keys)", "duplicate.sql", null),
            new Spec("anchor", "pgbench anchor.sql (the floor: lock, probe, insert in one statement)", "anchor.sql",
                    "SELECT last_offset FROM public.anchor_partitions WHERE id = 1"),
            new Spec("fresh", "pgbench fresh.sql (push_segment by id, the service's SQL)", "fresh.sql",
                    "SELECT last_offset FROM exactly.partitions WHERE id = 1"),
            new Spec("service", "service, stateless shape, HTTP, 1 item/request, 1 partition", null,
                    "SELECT p.last_offset FROM exactly.partitions p JOIN exactly.queues q ON q.id = p.queue_id "
                            + "WHERE q.name = '" + SERVICE_QUEUE + "' AND p.name = 'p0'"));

    /** One cell's totals over its rounds. */
    static final class Cell {
        final String id;
        final String title;
        /** Pushes counted for the per-push figures (CPU, WAL, commits). */
        double pushes;
        double cpuSeconds;
        /** pgbench cells: CPU and pushes from before pgbench started (its connections' start-up included). */
        double wholeCpuSeconds;
        double wholePushes;
        double walBytes;
        /** WAL bytes pg_walinspect put in its class "counted" (duplicate cell; NaN without a breakdown). */
        double countedWalBytes = Double.NaN;
        /** The excluded WAL by class and record type: [records, bytes, full-page image bytes] (duplicate cell). */
        final Map<String, long[]> excludedWal = new TreeMap<>();
        double fsyncs;
        /** Commits in the database (duplicate cell only: pg_stat_database.xact_commit). */
        double commits;
        double rateItems;
        double rateSeconds;
        final List<Double> roundRates = new ArrayList<>();
        final List<LoadResult> http = new ArrayList<>();
        String problem;

        Cell(String id, String title) {
            this.id = id;
            this.title = title;
        }

        /** Pushes (transactions) per second over all rounds. */
        double rate() {
            return rateSeconds > 0 ? rateItems / rateSeconds : Double.NaN;
        }

        /** Database CPU per push from before pgbench started, microseconds (NaN for the other cells). */
        double wholeCpuMicrosPerPush() {
            return wholePushes > 0 && wholeCpuSeconds > 0 ? wholeCpuSeconds * 1e6 / wholePushes : Double.NaN;
        }

        /** Database CPU per push, microseconds. */
        double cpuMicrosPerPush() {
            return pushes > 0 && cpuSeconds > 0 ? cpuSeconds * 1e6 / pushes : Double.NaN;
        }

        /** The server's WAL bytes per push. */
        double walPerPush() {
            return pushes > 0 ? walBytes / pushes : Double.NaN;
        }

        /** WAL bytes per push of the class "counted" ({@link WalBreakdown}); without a breakdown, {@link #walPerPush()}. */
        double countedWalPerPush() {
            if (Double.isNaN(countedWalBytes)) {
                return walPerPush();
            }
            return pushes > 0 ? countedWalBytes / pushes : Double.NaN;
        }

        /** The excluded WAL, "class record ×records bytes B (fpi B full-page images)", largest first; "none" when none. */
        String excludedWal() {
            List<String> out = new ArrayList<>();
            excludedWal.entrySet().stream().sorted((x, y) -> Long.compare(y.getValue()[1], x.getValue()[1]))
                    .forEach(e -> out.add(String.format(Locale.ROOT, "%s ×%d %d B%s", e.getKey(), e.getValue()[0],
                            e.getValue()[1], e.getValue()[2] > 0 ? " (" + e.getValue()[2] + " B full-page images)" : "")));
            return out.isEmpty() ? "none" : String.join(", ", out);
        }

        /** Commits per WAL fsync; infinite when nothing was synced. */
        double commitsPerFsync(boolean duplicate) {
            double c = duplicate ? commits : pushes;
            return fsyncs > 0 ? c / fsyncs : Double.POSITIVE_INFINITY;
        }
    }

    /** What the phase measured, or why it did not run. */
    static final class Result {
        String skipped;
        String pgbench;
        /** Why there is no CPU figure, or null. */
        String cpuProblem;
        /** Why there is no commits-per-fsync figure, or null. */
        String walSyncProblem;
        /** Why the duplicate cell's WAL has no breakdown by record (pg_walinspect), or null. */
        String walBreakdownProblem;
        final Map<String, Cell> cells = new LinkedHashMap<>();
        String settings;

        Optional<Cell> cell(String id) {
            return Optional.ofNullable(cells.get(id));
        }

        /**
         * WAL bytes per duplicate push (target: 0; met below 1): the WAL pg_walinspect counted
         * (see {@link WalBreakdown}), or the server's whole WAL where it cannot read it back.
         */
        double walPerDuplicate() {
            return cell("duplicate").map(Cell::countedWalPerPush).orElse(Double.NaN);
        }

        /** Lock held per push of a cell, × the anchor's: anchor tx/s ÷ the cell's pushes/s. */
        double lockVsAnchor(String id) {
            return ratio(cell("anchor").map(Cell::rate), cell(id).map(Cell::rate));
        }

        /** Database CPU per push of a cell ÷ the anchor's per transaction. */
        double cpuVsAnchor(String id) {
            return ratio(cell(id).map(Cell::cpuMicrosPerPush), cell("anchor").map(Cell::cpuMicrosPerPush));
        }

        private static double ratio(Optional<Double> a, Optional<Double> b) {
            return a.isPresent() && b.isPresent() && b.get() > 0 ? a.get() / b.get() : Double.NaN;
        }
    }

    private record Stats(PostgresCpu.Reading cpu, long lsn, String lsnText, long walSyncs, long commits, long counter) {
    }

    private final Suite s;
    private final Result result = new Result();
    private PostgresCpu cpu;
    private boolean walSync;
    private WalBreakdown walBreakdown;

    FloorPhase(Suite suite) {
        this.s = suite;
    }

    /** Runs the phase; never throws for a missing pgbench (the result says skipped). */
    Result run() throws Exception {
        Optional<Pgbench> found = Pgbench.find();
        if (found.isEmpty()) {
            result.skipped = "no pgbench (with psql beside it) on PATH or under /usr/lib/postgresql/*/bin";
            Suite.log("floor: skipped, " + result.skipped);
            return result;
        }
        Pgbench pgbench = found.get();
        result.pgbench = pgbench.version() + " (" + pgbench.path() + ")";
        s.truncateAll();
        Map<String, String> settings = new HashMap<>(Suite.MODES.get("off"));
        settings.put("exactly.maintenance.enabled", "false");
        result.settings = String.join(", ", new TreeMap<>(settings).entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()).toList());
        Path jar = Path.of(s.args.getOrDefault("jar", "target/quarkus-app/quarkus-run.jar"));
        try {
            createDatabase(pgbench);
            measure(pgbench, jar, settings);
        } finally {
            try (Connection c = s.db.connect("postgres"); Statement st = c.createStatement()) {
                st.execute("DROP DATABASE IF EXISTS " + DATABASE + " WITH (FORCE)");
            }
        }
        return result;
    }

    private void measure(Pgbench pgbench, Path jar, Map<String, String> settings) throws Exception {
        try (Connection floor = s.db.connect(DATABASE); Connection bench = s.db.connect(BenchDatabase.NAME);
             ServerProcess service = ServerProcess.start(jar, s.db.reactiveUrl(BenchDatabase.NAME), s.db.user(),
                     Suite.sha256(s.apiKey), settings, s.work.resolve("service-floor.log"))) {
            probe(floor);
            service.awaitFirstPush(s.apiKey, Duration.ofSeconds(120));
            for (Spec spec : SPECS) {
                result.cells.put(spec.id(), new Cell(spec.id(), spec.title()));
            }
            Suite.log("floor warm-up (not reported)");
            for (Spec spec : SPECS) {
                if (spec.script() != null) {
                    pgbenchRun(pgbench, spec, 2, "warmup");
                } else {
                    Suite.log("  " + JitWarmup.settle(service.baseUrl(), s.apiKey, CLIENTS, List.of(workload()),
                            Duration.ofSeconds(30), Duration.ofSeconds(90)));
                }
            }
            for (int r = 0; r < s.rounds; r++) {
                for (int i = 0; i < SPECS.size(); i++) {
                    Spec spec = SPECS.get((i + r) % SPECS.size());
                    Cell cell = result.cells.get(spec.id());
                    vacuum(floor, bench);
                    Suite.log("floor " + spec.id() + " (round " + (r + 1) + "/" + s.rounds + ")");
                    if (spec.script() == null) {
                        measureService(service, spec, cell, floor, bench);
                    } else {
                        measurePgbench(pgbench, spec, cell, floor, r);
                    }
                }
            }
        }
    }

    private void createDatabase(Pgbench pgbench) throws SQLException, IOException, InterruptedException {
        try (Connection c = s.db.connect("postgres"); Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + DATABASE + " WITH (FORCE)");
            st.execute("CREATE DATABASE " + DATABASE);
        }
        Path log = s.work.resolve("floor-migrate.log");
        ProcessBuilder pb = new ProcessBuilder(s.root.resolve("bench/floor/migrate").toString(), DATABASE)
                .redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("PGHOST", s.db.host());
        pb.environment().put("PGPORT", Integer.toString(s.db.port()));
        pb.environment().put("PGUSER", s.db.user());
        pb.environment().put("PSQL", pgbench.psql().toString());
        int code = pb.start().waitFor();
        if (code != 0) {
            throw new IllegalStateException("bench/floor/migrate " + DATABASE + " exited with " + code + "; see " + log);
        }
    }

    /** What this server can report: its processes' CPU (same machine), pg_stat_wal.wal_sync (14 to 17). */
    private void probe(Connection floor) throws SQLException {
        try {
            cpu = PostgresCpu.of(floor);
        } catch (IllegalStateException e) {
            result.cpuProblem = e.getMessage();
        }
        try (Statement st = floor.createStatement(); ResultSet rs = st.executeQuery(
                "SELECT EXISTS (SELECT 1 FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n "
                        + "ON n.oid = c.relnamespace WHERE n.nspname = 'pg_catalog' AND c.relname = 'pg_stat_wal' "
                        + "AND a.attname = 'wal_sync')")) {
            rs.next();
            walSync = rs.getBoolean(1);
        }
        if (!walSync) {
            result.walSyncProblem = "this server has no pg_stat_wal.wal_sync (PostgreSQL 14 to 17 have it)";
        }
        try {
            walBreakdown = WalBreakdown.of(floor);
        } catch (SQLException e) {
            result.walBreakdownProblem = "no pg_walinspect on this server (PostgreSQL 16 and later): " + e.getMessage();
        }
    }

    /**
     * VACUUM ANALYZE of both databases, then a VACUUM of their pg_statistic: ANALYZE replaces
     * pg_statistic's rows and leaves the old versions dead, which the next cell's WAL would
     * otherwise carry: an autovacuum of pg_statistic started by them, and the pruning of its pages
     * by the first backends that plan a statement (with full-page images when a checkpoint began
     * in between).
     */
    private void vacuum(Connection floor, Connection bench) throws SQLException {
        try (Statement a = floor.createStatement(); Statement b = bench.createStatement()) {
            a.execute("VACUUM ANALYZE");
            b.execute("VACUUM ANALYZE");
            a.execute("VACUUM pg_catalog.pg_statistic");
            b.execute("VACUUM pg_catalog.pg_statistic");
        }
    }

    private Stats stats(Connection floor, Connection counterDb, String counter) throws SQLException {
        PostgresCpu.Reading c = cpu == null ? null : cpu.read();
        long lsn;
        String lsnText;
        long syncs;
        long commits;
        try (Statement st = floor.createStatement(); ResultSet rs = st.executeQuery("SELECT pg_current_wal_lsn()::text, "
                + "(SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()), "
                + (walSync ? "(SELECT wal_sync FROM pg_stat_wal)" : "0"))) {
            rs.next();
            lsnText = rs.getString(1);
            lsn = lsn(lsnText);
            commits = rs.getLong(2);
            syncs = rs.getLong(3);
        }
        long n = 0;
        if (counter != null) {
            try (Statement st = counterDb.createStatement(); ResultSet rs = st.executeQuery(counter)) {
                n = rs.next() ? rs.getLong(1) : -1;
            }
        }
        return new Stats(c, lsn, lsnText, syncs, commits, n);
    }

    /** An LSN "X/Y" (hex) as a byte position. */
    static long lsn(String text) {
        int slash = text.indexOf('/');
        return (Long.parseLong(text.substring(0, slash), 16) << 32) + Long.parseLong(text.substring(slash + 1), 16);
    }

    private void measurePgbench(Pgbench pgbench, Spec spec, Cell cell, Connection floor, int round) throws Exception {
        boolean whole = spec.counter() == null; // duplicates: the whole run, as bench/floor/run measures it
        double warm = s.warmup.toNanos() / 1e9;
        int seconds = (int) Math.max(1, Math.ceil(warm + s.measure.toNanos() / 1e9));
        Path log = s.work.resolve("pgbench-" + spec.id() + "-" + (round + 1) + ".log");
        Thread.sleep(1200); // the last cell's statistics are flushed
        Stats pre = stats(floor, floor, spec.counter());
        Stats a = pre;
        Process p = pgbench.start(s.db, DATABASE, CLIENTS, seconds, s.root.resolve("bench/floor/" + spec.script()), log);
        long t0 = System.nanoTime();
        if (!whole) {
            Thread.sleep(s.warmup.toMillis());
            a = stats(floor, floor, spec.counter());
            t0 = System.nanoTime();
        }
        Pgbench.Run run = Pgbench.finish(p, log);
        double secs = (System.nanoTime() - t0) / 1e9;
        Thread.sleep(1200); // pgbench's backends are reaped and have flushed their statistics
        Stats b = stats(floor, floor, spec.counter());
        if (run.problem() != null) {
            cell.problem = cell.problem != null ? cell.problem : run.problem() + " (" + log + ")";
            Suite.log("  " + run.problem());
            return;
        }
        double pushes = whole ? run.transactions() : b.counter() - a.counter();
        cell.pushes += pushes;
        cell.walBytes += b.lsn() - a.lsn();
        cell.fsyncs += b.walSyncs() - a.walSyncs();
        cell.commits += b.commits() - a.commits() - 1; // less the first reading's own commit
        if (whole && walBreakdown != null) {
            WalBreakdown.Result w = null;
            try {
                w = walBreakdown.read(a.lsnText(), b.lsnText());
            } catch (SQLException e) {
                // a breakdown of some rounds only would count part of the cell: the server's WAL instead
                result.walBreakdownProblem = "pg_walinspect could not read the cell's WAL back: " + e.getMessage();
                walBreakdown = null;
                cell.countedWalBytes = Double.NaN;
                cell.excludedWal.clear();
            }
            if (w != null) {
                cell.countedWalBytes = (Double.isNaN(cell.countedWalBytes) ? 0 : cell.countedWalBytes) + w.counted();
                for (WalBreakdown.Part part : w.parts()) {
                    if (!part.kind().equals("counted")) {
                        long[] t = cell.excludedWal.computeIfAbsent(part.kind() + " " + part.record(), k -> new long[3]);
                        t[0] += part.count();
                        t[1] += part.bytes();
                        t[2] += part.fpiBytes();
                    }
                }
                Suite.log("  WAL " + a.lsnText() + " to " + b.lsnText() + ": " + w.describe());
            }
        }
        if (whole) {
            cell.rateItems += run.transactions();
            cell.rateSeconds += run.transactions() / run.tps();
            cell.roundRates.add(run.tps());
        } else {
            cell.cpuSeconds += cpu == null ? 0 : b.cpu().since(a.cpu());
            cell.wholeCpuSeconds += cpu == null ? 0 : b.cpu().since(pre.cpu());
            cell.wholePushes += b.counter() - pre.counter();
            cell.rateItems += pushes;
            cell.rateSeconds += secs;
            cell.roundRates.add(pushes / secs);
        }
        Suite.log(String.format(Locale.ROOT, "  %.0f tx/s (pgbench: %.0f tps over %d s), %.1f WAL B/tx%s",
                cell.roundRates.get(cell.roundRates.size() - 1), run.tps(), seconds, (b.lsn() - a.lsn()) / pushes,
                whole ? "" : String.format(Locale.ROOT, ", %.0f µs database CPU/tx (%.0f with pgbench's start-up)",
                        cpu == null ? Double.NaN : b.cpu().since(a.cpu()) * 1e6 / pushes,
                        cpu == null ? Double.NaN : b.cpu().since(pre.cpu()) * 1e6 / (b.counter() - pre.counter()))));
    }

    private void measureService(ServerProcess service, Spec spec, Cell cell, Connection floor, Connection bench)
            throws Exception {
        Thread.sleep(1200);
        Stats a = stats(floor, bench, spec.counter());
        LoadResult res = HttpLoad.run(options(service, s.warmup, s.measure), workload());
        Thread.sleep(1000);
        Stats b = stats(floor, bench, spec.counter());
        Suite.logResult(res);
        if (res.errors() > 0) {
            cell.problem = cell.problem != null ? cell.problem : res.errors() + " errors, first: " + res.firstError();
        }
        double pushes = b.counter() - a.counter();
        cell.http.add(res);
        cell.pushes += pushes;
        cell.cpuSeconds += cpu == null ? 0 : b.cpu().since(a.cpu());
        cell.walBytes += b.lsn() - a.lsn();
        cell.fsyncs += b.walSyncs() - a.walSyncs();
        cell.rateItems += res.items();
        cell.rateSeconds += res.seconds();
        cell.roundRates.add(res.msgsPerSecond());
        Suite.log(String.format(Locale.ROOT, "  %.0f pushes counted, %.0f µs database CPU/push", pushes,
                cpu == null ? Double.NaN : b.cpu().since(a.cpu()) * 1e6 / pushes));
    }

    private void pgbenchRun(Pgbench pgbench, Spec spec, int seconds, String tag) throws Exception {
        Path log = s.work.resolve("pgbench-" + spec.id() + "-" + tag + ".log");
        Pgbench.Run run = Pgbench.finish(pgbench.start(s.db, DATABASE, CLIENTS, seconds,
                s.root.resolve("bench/floor/" + spec.script()), log), log);
        if (run.problem() != null) {
            throw new IllegalStateException(spec.id() + ": " + run.problem() + " (" + log + ")");
        }
    }

    private HttpLoad.Options options(ServerProcess service, Duration warmup, Duration measure) {
        return new HttpLoad.Options(service.baseUrl(), s.apiKey, CLIENTS, warmup, measure, 100_000_000);
    }

    private static Workload workload() {
        return Workload.of(SERVICE_QUEUE, 1, 1, 0);
    }
}
