package dev.exactly.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Fusion's pipeline depth over HTTP ({@code bench/fusion/run}): one service in server mode (cache +
 * fusion) per value of {@code exactly.fusion.pipeline}, all on one PostgreSQL, and two loads into
 * one partition: 8 producers of 100-item requests and 32 producers of 1-item requests. Cells are
 * interleaved round by round, so the ratios between depths come from one run under the same
 * machine load. Per cell: items/s, requests/s, the database's commits/s ({@code pg_stat_database.
 * xact_commit} of the benchmark database over the measured period: indicative, backends report
 * their counts about once a second), requests per commit, the service's fused flushes per second
 * and requests per flush (its exactly_fusion_flushes_total meter: exact), the share of its
 * probes the warm cache narrowed and its delta reads (a commit notice that arrives out of order
 * costs one), the
 * machine's busy fraction, and the mean number of the database's backends active and, of those,
 * waiting for a lock (sampled every 20 ms from {@code pg_stat_activity}). Loopback only.
 *
 * <p>Options: {@code --pipelines 1,2} (depths compared), {@code --rounds N} (3), {@code --warmup S}
 * (warm-up of each service and load before the first round, 10), {@code --measure S} (per cell
 * and round, 5), {@code --pg-url jdbc:postgresql://HOST:PORT/postgres} (else an embedded
 * PostgreSQL with durable commits), {@code --out FILE} (the markdown table, also printed).
 */
public final class FusionPipelineBench {

    private static final String API_KEY = "bench-fusion-pipeline-key";

    /** One load shape. */
    record Load(String id, String title, int clients, int items) {
    }

    static final List<Load> LOADS = List.of(new Load("n100-p1", "8 producers x 100 items, 1 partition", 8, 100),
            new Load("n1-p1", "32 producers x 1 item, 1 partition", 32, 1));

    /** Sums over a cell's rounds. */
    static final class Totals {
        final List<LoadResult> runs = new ArrayList<>();
        double commits;
        double flushes;
        double narrowed;
        double probes;
        double hydrations;
        double machineBusy;
        double active;
        double waiting;
        double seconds;
    }

    private FusionPipelineBench() {
    }

    /**
     * Runs the comparison.
     *
     * @param argv the options above
     * @throws Exception when the database or a service cannot start, or a load fails
     */
    public static void main(String[] argv) throws Exception {
        Map<String, String> args = new LinkedHashMap<>();
        for (int i = 0; i + 1 < argv.length; i += 2) {
            args.put(argv[i].replaceFirst("^--", ""), argv[i + 1]);
        }
        List<Integer> depths = new ArrayList<>();
        for (String d : args.getOrDefault("pipelines", "1,2").split(",")) {
            depths.add(Integer.parseInt(d.trim()));
        }
        int rounds = Integer.parseInt(args.getOrDefault("rounds", "3"));
        Duration warmup = Duration.ofMillis((long) (Double.parseDouble(args.getOrDefault("warmup", "10")) * 1000));
        Duration measure = Duration.ofMillis((long) (Double.parseDouble(args.getOrDefault("measure", "5")) * 1000));
        Path root = Path.of("").toAbsolutePath();
        Path work = root.resolve("target/bench");
        Files.createDirectories(work);
        Path jar = Path.of(args.getOrDefault("jar", "target/quarkus-app/quarkus-run.jar"));
        String pgUrl = args.get("pg-url");
        String loadStart = Machine.loadAverage();
        try (BenchDatabase db = pgUrl != null ? BenchDatabase.external(pgUrl) : BenchDatabase.embedded("on")) {
            db.prepare(root);
            String url = db.reactiveUrl(BenchDatabase.NAME);
            Map<Integer, ServerProcess> services = new LinkedHashMap<>();
            try (Connection c = db.connect(BenchDatabase.NAME)) {
                for (int d : depths) {
                    Map<String, String> settings = new LinkedHashMap<>(Suite.MODES.get("cache+fusion"));
                    settings.put("exactly.fusion.pipeline", Integer.toString(d));
                    services.put(d, ServerProcess.start(jar, url, db.user(), Suite.sha256(API_KEY), settings,
                            work.resolve("service-pipeline-" + d + ".log"), List.of()));
                }
                for (ServerProcess s : services.values()) {
                    s.awaitFirstPush(API_KEY, Duration.ofSeconds(120));
                }
                for (Map.Entry<Integer, ServerProcess> e : services.entrySet()) {
                    for (Load l : LOADS) {
                        Suite.log("warm-up: pipeline " + e.getKey() + ", " + l.title());
                        HttpLoad.run(new HttpLoad.Options(e.getValue().baseUrl(), API_KEY, l.clients(), Duration.ZERO, warmup,
                                100_000_000), workload(l, e.getKey()));
                    }
                }
                Map<String, Totals> cells = new LinkedHashMap<>();
                List<String> order = new ArrayList<>();
                for (Load l : LOADS) {
                    for (int d : depths) {
                        String key = l.id() + "/" + d;
                        order.add(key);
                        cells.put(key, new Totals());
                    }
                }
                for (int r = 0; r < rounds; r++) {
                    for (int i = 0; i < order.size(); i++) {
                        String key = order.get((i + r) % order.size());
                        Load l = LOADS.stream().filter(x -> key.startsWith(x.id() + "/")).findFirst().orElseThrow();
                        int d = Integer.parseInt(key.substring(key.indexOf('/') + 1));
                        Suite.log("pipeline " + d + ", " + l.title() + " (round " + (r + 1) + "/" + rounds + ")");
                        Totals t = cells.get(key);
                        double commits0 = commits(c);
                        Map<String, Double> m0 = services.get(d).metrics();
                        double busy0 = MachineCpu.available() ? MachineCpu.busySeconds() : Double.NaN;
                        Sampler sampler = new Sampler(db);
                        sampler.start();
                        LoadResult res = HttpLoad.run(new HttpLoad.Options(services.get(d).baseUrl(), API_KEY, l.clients(),
                                Duration.ZERO, measure, 100_000_000), workload(l, d));
                        double[] act = sampler.finish();
                        t.commits += commits(c) - commits0;
                        Map<String, Double> m1 = services.get(d).metrics();
                        t.flushes += Suite.delta(m0, m1, "exactly_fusion_flushes_total");
                        t.narrowed += Suite.delta(m0, m1, "exactly_dedup_probes_total{kind=\"narrowed\"}");
                        t.probes += Suite.delta(m0, m1, "exactly_dedup_probes_total");
                        t.hydrations += Suite.delta(m0, m1, "exactly_dedup_cache_hydrations_total{kind=\"delta\"}");
                        t.machineBusy += MachineCpu.available() ? MachineCpu.busySeconds() - busy0 : Double.NaN;
                        t.active += act[0] * res.seconds();
                        t.waiting += act[1] * res.seconds();
                        t.seconds += res.seconds();
                        t.runs.add(res);
                        Suite.logResult(res);
                    }
                }
                String table = report(depths, cells, rounds, measure, loadStart);
                System.out.println(table);
                if (args.containsKey("out")) {
                    Files.writeString(Path.of(args.get("out")), table);
                }
            } finally {
                for (ServerProcess s : services.values()) {
                    s.close();
                }
            }
        }
    }

    private static Workload workload(Load l, int depth) {
        return Workload.of("pipeline" + depth + "-" + l.id(), l.items(), 1, 0);
    }

    private static double commits(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT pg_stat_clear_snapshot(), xact_commit FROM pg_stat_database "
                     + "WHERE datname = current_database()")) {
            rs.next();
            return rs.getLong(2);
        }
    }

    /** Samples pg_stat_activity every 20 ms on a connection of its own. */
    static final class Sampler extends Thread {
        private final BenchDatabase db;
        private final AtomicBoolean stop = new AtomicBoolean();
        private long samples;
        private long active;
        private long waiting;
        private Exception failure;

        Sampler(BenchDatabase db) {
            this.db = db;
            setDaemon(true);
        }

        @Override
        public void run() {
            // one transaction for all samples (it would count in xact_commit otherwise), its
            // statistics snapshot cleared before each
            try (Connection c = db.connect(BenchDatabase.NAME); Statement s = c.createStatement()) {
                c.setAutoCommit(false);
                while (!stop.get()) {
                    s.execute("SELECT pg_stat_clear_snapshot()");
                    try (ResultSet rs = s.executeQuery("SELECT count(*) FILTER (WHERE state = 'active'), count(*) FILTER "
                            + "(WHERE state = 'active' AND wait_event_type = 'Lock') FROM pg_stat_activity "
                            + "WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'")) {
                        rs.next();
                        active += rs.getLong(1);
                        waiting += rs.getLong(2);
                        samples++;
                    }
                    Thread.sleep(20);
                }
                c.rollback();
            } catch (Exception e) {
                failure = e;
            }
        }

        /** @return {mean active backends, mean of them waiting for a lock} */
        double[] finish() throws InterruptedException {
            stop.set(true);
            join();
            if (failure != null || samples == 0) {
                return new double[] {Double.NaN, Double.NaN};
            }
            return new double[] {(double) active / samples, (double) waiting / samples};
        }
    }

    private static String report(List<Integer> depths, Map<String, Totals> cells, int rounds, Duration measure,
                                 String loadStart) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "Fusion pipeline depth, server mode (cache + fusion), %d rounds x %.1f s per cell, "
                + "cells interleaved; load average at start %s, at end %s; %d cores.%n%n", rounds, measure.toMillis() / 1000.0,
                loadStart, Machine.loadAverage(), Runtime.getRuntime().availableProcessors()));
        sb.append("| load | pipeline | items/s | requests/s | p50 ms | p99 ms | commits/s | requests/commit | machine busy "
                + "| backends active | of them waiting for a lock | flushes/s | requests/flush | narrowed probes | cache delta reads | items/s vs pipeline ")
                .append(depths.get(0)).append(" |\n");
        sb.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
        for (Load l : LOADS) {
            double base = Double.NaN;
            for (int d : depths) {
                Totals t = cells.get(l.id() + "/" + d);
                LoadResult m = LoadResult.merge(t.runs);
                if (Double.isNaN(base)) {
                    base = m.msgsPerSecond();
                }
                double cores = Runtime.getRuntime().availableProcessors();
                sb.append(String.format(Locale.ROOT, "| %s | %d | %.0f | %.0f | %.2f | %.2f | %.0f | %.2f | %.0f%% | %.2f | %.2f "
                                + "| %.0f | %.2f | %.0f%% | %.0f | %.2fx |%n",
                        l.title(), d, m.msgsPerSecond(), m.requestsPerSecond(), m.p50Ms(), m.p99Ms(), t.commits / t.seconds,
                        m.requests() / t.commits, 100 * t.machineBusy / (t.seconds * cores), t.active / t.seconds,
                        t.waiting / t.seconds, t.flushes / t.seconds, m.requests() / t.flushes, 100 * t.narrowed / t.probes, t.hydrations,
                        m.msgsPerSecond() / base));
            }
        }
        return sb.toString();
    }
}
