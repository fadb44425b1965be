package dev.exactly.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The suite's spread phase (spread queues and fusion, {@code bench/run --only spread}; bench/spread/run
 * runs it alone): two services on the suite's PostgreSQL, the stateless shape (cache and fusion
 * off, as the Lambda runs) and server mode (cache + fusion), 16 producers of one-item requests, the
 * cells interleaved round by round:
 * <ul>
 *   <li>stateless, one partition;</li>
 *   <li>stateless, one queue with spreadPartitions 16 (items name no partition);</li>
 *   <li>stateless, 16 partitions, one producer each;</li>
 *   <li>server mode, 16 partitions, one producer each;</li>
 *   <li>server mode, the spread queue (for reference).</li>
 * </ul>
 * Targets: spread ÷ one partition ≥ 3; server ÷ stateless at one producer per partition ≥ 1.
 */
final class SpreadPhase {

    /** Producers (requests in flight). */
    static final int CLIENTS = 16;

    /** One measured cell: which service, which load, its runs and the CPU they took. */
    record Cell(String id, String title, String mode, Workload workload, List<LoadResult> runs, Usage usage) {
        /** All rounds merged. */
        LoadResult merged() {
            return LoadResult.merge(runs);
        }
    }

    /**
     * CPU over a cell's rounds, warm-up periods included: pushes stored (counted by the queue's
     * offsets), the database's CPU ({@link PostgresCpu}) and the whole machine's ({@link MachineCpu}).
     */
    static final class Usage {
        double pushes;
        /** Sums of the rounds' readings; NaN when a reading was not available (NaN stays NaN). */
        double databaseSeconds;
        double machineSeconds;

        /** Database CPU per stored push, microseconds (NaN when not read). */
        double databaseMicrosPerPush() {
            return pushes > 0 ? databaseSeconds * 1e6 / pushes : Double.NaN;
        }

        /** Machine CPU (all processes, all cores) per stored push, microseconds (NaN when not read). */
        double machineMicrosPerPush() {
            return pushes > 0 ? machineSeconds * 1e6 / pushes : Double.NaN;
        }

        private void add(double pushes, double database, double machine) {
            this.pushes += pushes;
            databaseSeconds += database;
            machineSeconds += machine;
        }
    }

    /** The cells in report order. */
    static final class Result {
        final Map<String, Cell> cells = new LinkedHashMap<>();

        Optional<Cell> cell(String id) {
            return Optional.ofNullable(cells.get(id)).filter(c -> !c.runs().isEmpty());
        }

        /** The spread target: stateless, spread queue ÷ one partition (msgs/s). */
        double spreadRatio() {
            return ratio("spread-off", "one-off");
        }

        /** The fusion target: server mode ÷ stateless, 16 partitions, one producer each (msgs/s). */
        double fusionRatio() {
            return ratio("pinned-fused", "pinned-off");
        }

        double ratio(String a, String b) {
            Optional<Cell> x = cell(a);
            Optional<Cell> y = cell(b);
            if (x.isEmpty() || y.isEmpty() || y.get().merged().msgsPerSecond() <= 0) {
                return Double.NaN;
            }
            return x.get().merged().msgsPerSecond() / y.get().merged().msgsPerSecond();
        }

        /**
         * The spread target's ceiling on this machine: the pushes per second all cores could give the spread
         * cell at the machine CPU per push it measured, ÷ one partition's msgs/s (NaN when not read).
         */
        double spreadCeiling() {
            Optional<Cell> x = cell("spread-off");
            Optional<Cell> y = cell("one-off");
            if (x.isEmpty() || y.isEmpty() || !(x.get().usage().machineMicrosPerPush() > 0)) {
                return Double.NaN;
            }
            double ceiling = Runtime.getRuntime().availableProcessors() * 1e6 / x.get().usage().machineMicrosPerPush();
            return ceiling / y.get().merged().msgsPerSecond();
        }
    }

    private final Suite s;

    SpreadPhase(Suite suite) {
        this.s = suite;
    }

    Result run() throws Exception {
        Result result = new Result();
        s.truncateAll();
        Path jar = Path.of(s.args.getOrDefault("jar", "target/quarkus-app/quarkus-run.jar"));
        String url = s.db.reactiveUrl(BenchDatabase.NAME);
        try (Connection bench = s.db.connect(BenchDatabase.NAME);
             ServerProcess stateless = ServerProcess.start(jar, url, s.db.user(), Suite.sha256(s.apiKey),
                Suite.MODES.get("off"), s.work.resolve("service-spread-off.log"), s.recording("spread-off"));
             ServerProcess server = ServerProcess.start(jar, url, s.db.user(), Suite.sha256(s.apiKey),
                     Suite.MODES.get("cache+fusion"), s.work.resolve("service-spread-cache-fusion.log"),
                     s.recording("spread-cache-fusion"))) {
            stateless.awaitFirstPush(s.apiKey, Duration.ofSeconds(120));
            server.awaitFirstPush(s.apiKey, Duration.ofSeconds(120));
            Map<String, ServerProcess> services = Map.of("off", stateless, "cache+fusion", server);
            PostgresCpu cpu = null;
            try {
                cpu = PostgresCpu.of(bench);
            } catch (IllegalStateException e) {
                Suite.log("spread: no database CPU figures: " + e.getMessage());
            }
            spread(stateless.baseUrl(), "spread16-off", 16);
            spread(stateless.baseUrl(), "spread16-fused", 16);
            List<Cell> cells = List.of(
                    cell("one-off", "stateless, 1 partition", "off", Workload.of("one-off", 1, 1, 0)),
                    cell("spread-off", "stateless, spread queue (spreadPartitions 16)", "off",
                            Workload.of("spread16-off", 1, 0, 0)),
                    cell("pinned-off", "stateless, 16 partitions, one producer each", "off",
                            new Workload("pinned-off", 1, 16, 0, 64, true)),
                    cell("pinned-fused", "server mode, 16 partitions, one producer each", "cache+fusion",
                            new Workload("pinned-fused", 1, 16, 0, 64, true)),
                    cell("spread-fused", "server mode, spread queue (spreadPartitions 16)", "cache+fusion",
                            Workload.of("spread16-fused", 1, 0, 0)));
            cells.forEach(c -> result.cells.put(c.id(), c));
            Suite.log("spread warm-up until each service's throughput settles (not reported)");
            for (String mode : List.of("off", "cache+fusion")) {
                List<Workload> mine = cells.stream().filter(c -> c.mode().equals(mode)).map(Cell::workload).toList();
                Suite.log("  " + JitWarmup.settle(services.get(mode).baseUrl(), s.apiKey, CLIENTS, mine,
                        Duration.ofSeconds(30), Duration.ofSeconds(90)));
            }
            // the service warmed last is still compiling for a while after its warm-up; the cells
            // measure each service alone, so the machine is let go quiet first
            double busy = MachineCpu.awaitQuiet(0.15, Duration.ofSeconds(60));
            if (!Double.isNaN(busy)) {
                Suite.log(String.format(java.util.Locale.ROOT, "spread: machine at %.0f%% of its cores before the first round",
                        busy * 100));
            }
            for (int r = 0; r < s.rounds; r++) {
                for (int i = 0; i < cells.size(); i++) {
                    Cell c = cells.get((i + r) % cells.size());
                    Suite.log("spread " + c.title() + " (round " + (r + 1) + "/" + s.rounds + ")");
                    double db0 = cpu == null ? Double.NaN : cpu.read().total();
                    double machine0 = MachineCpu.available() ? MachineCpu.busySeconds() : Double.NaN;
                    long pushed0 = stored(bench, c.workload().queue());
                    LoadResult res = HttpLoad.run(new HttpLoad.Options(services.get(c.mode()).baseUrl(), s.apiKey,
                            CLIENTS, s.warmup, s.spreadMeasure, 100_000_000), c.workload());
                    double machine = MachineCpu.available() ? MachineCpu.busySeconds() - machine0 : Double.NaN;
                    double db = cpu == null ? Double.NaN : cpu.read().total() - db0;
                    long pushed = stored(bench, c.workload().queue()) - pushed0;
                    Suite.logResult(res);
                    Suite.log(String.format(java.util.Locale.ROOT, "  %d pushes stored, %.0f µs database CPU and %.0f µs "
                            + "machine CPU per push", pushed, db * 1e6 / pushed, machine * 1e6 / pushed));
                    c.runs().add(res);
                    c.usage().add(pushed, db, machine);
                }
            }
        }
        return result;
    }

    private static Cell cell(String id, String title, String mode, Workload w) {
        return new Cell(id, title, mode, w, new ArrayList<>(), new Usage());
    }

    /** Messages stored so far in {@code queue}: the sum of its partitions' next offsets. */
    private static long stored(Connection c, String queue) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT COALESCE(sum(p.last_offset + 1), 0) FROM exactly.partitions p "
                + "JOIN exactly.queues q ON q.id = p.queue_id WHERE q.name = ?")) {
            ps.setString(1, queue);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** Sets a queue's spreadPartitions (PATCH /api/v1/queues/{name}, creating the queue). */
    private void spread(URI base, String queue, int n) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(base.resolve("/api/v1/queues/" + queue))
                .header("Authorization", "Bearer " + s.apiKey).header("Content-Type", "application/json")
                .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"options\":{\"spreadPartitions\":" + n + "}}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("PATCH " + queue + ": " + r.statusCode() + " " + r.body());
        }
    }
}
