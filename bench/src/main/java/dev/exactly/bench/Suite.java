package dev.exactly.bench;

import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * The whole benchmark suite, one command (bench/run), in phases: first the Lambda package's cold
 * start under the runtime interface client, on the rested machine ({@link LambdaColdStartPhase},
 * {@code lambda}); then JMH micro-benchmarks of the in-memory parts
 * ({@code jmh}), the SQL-level matrix (Exactly's push_bundle against the three
 * baselines, in-process, same PostgreSQL, same run: {@code sql}), the HTTP matrix against the
 * service in each mode (cache off; cache on; cache on with fusion: {@code http}), the service's cold
 * start ({@code cold}): the push path's targets; then the single push against
 * pgbench's floor and the duplicate's WAL ({@link FloorPhase}, {@code floor}), spread and fusion over
 * HTTP ({@link SpreadPhase}, {@code spread}); then delivery to an HTTP destination
 * ({@link DestinationsPhase}, {@code destinations}); then BENCHMARKS.md.
 *
 * <p>Options: {@code --out FILE} (BENCHMARKS.md), {@code --jar FILE}
 * (target/quarkus-app/quarkus-run.jar), {@code --pg-url JDBC_URL} (an external PostgreSQL instead
 * of the embedded one), {@code --synchronous-commit on|off} (embedded only, default on),
 * {@code --api-key KEY}, {@code --warmup SECONDS} (0.5), {@code --measure SECONDS} (2),
 * {@code --spread-measure SECONDS} (6, the spread phase's cells),
 * {@code --rounds N} (3: every cell of a group runs once per round, interleaved with the cells it
 * is compared with, so drifting machine load hits them alike),
 * {@code --only lambda,jmh,sql,http,cold,floor,spread,destinations} (default: all), {@code --modes off,cache,cache+fusion},
 * {@code --jar-b FILE} (the destinations phase as an A/B: the service of --jar beside this one,
 * rounds interleaved; B's figures and B ÷ A go to the log; {@code --settings-b k=v,k=v}: B's
 * settings on top of A's),
 * {@code --lambda-runs N} (5 starts), {@code --lambda-zip FILE} (target/bench/function.zip),
 * {@code --note TEXT} (printed under "Run conditions"), {@code --profile DIR} (records each
 * service with JFR, settings=profile: the http phase into DIR/service-MODE.jfr, the spread phase
 * into DIR/service-spread-off.jfr and DIR/service-spread-cache-fusion.jfr; for `jfr print` or JMC).
 */
public final class Suite {

    /** Service modes and the settings that select them. */
    static final Map<String, Map<String, String>> MODES = new LinkedHashMap<>();

    static {
        MODES.put("off", Map.of("exactly.dedup-cache.enabled", "false", "exactly.fusion.enabled", "false"));
        MODES.put("cache", Map.of("exactly.dedup-cache.enabled", "true", "exactly.fusion.enabled", "false"));
        MODES.put("cache+fusion", Map.of("exactly.dedup-cache.enabled", "true", "exactly.fusion.enabled", "true"));
    }

    /**
     * Unrecorded load on each pre-filled window before its first round: the pre-fill ends with a
     * CHECKPOINT, after which the first write to every index page logs a full-page image; a
     * steady state pays that once per checkpoint cycle, not in the first seconds of a run.
     */
    static final Duration SETTLE = Duration.ofSeconds(3);

    /** SQL-level designs: name → bundle function. */
    static final Map<String, String> DESIGNS = new LinkedHashMap<>();

    static {
        DESIGNS.put("exactly", "exactly.push_bundle");
        DESIGNS.put("naive", "bench.naive_bundle");
        DESIGNS.put("scan", "bench.scan_bundle");
        DESIGNS.put("plain", "bench.plain_bundle");
    }

    /** A metric of the warm cache: any name matching this (Micrometer's Prometheus names) shows the cache exists. */
    static final Pattern CACHE_METRIC = Pattern.compile(
            System.getProperty("bench.cache-metric", "(?i).*dedup_?cache.*"));
    /** Resident bytes / resident hashes metrics of the cache, for bytes per hash. */
    static final Pattern CACHE_BYTES = Pattern.compile(
            System.getProperty("bench.cache-bytes-metric", "(?i).*dedup_?cache.*resident.*bytes.*"));
    static final Pattern CACHE_HASHES = Pattern.compile(
            System.getProperty("bench.cache-hashes-metric", "(?i).*dedup_?cache.*resident.*hash.*"));
    /** A metric of the fusion layer. */
    static final Pattern FUSION_METRIC = Pattern.compile(
            System.getProperty("bench.fusion-metric", "(?i).*fusion.*"));

    final Map<String, String> args;
    final Path root = Path.of("").toAbsolutePath();
    final Path work = root.resolve("target/bench");
    final Duration warmup;
    final Duration measure;
    /**
     * The spread phase's measurement per cell and round (--spread-measure, 6 s): its ratios
     * compare cells bound by different things (a lock, the CPU), whose 2 s rounds scattered by
     * up to 1.5× on a shared host.
     */
    final Duration spreadMeasure;
    final int rounds;
    final String apiKey;
    final List<Measurement> measurements = new ArrayList<>();
    final Map<String, String> modeStatus = new LinkedHashMap<>();
    /** Readings of the cache: label → {bytes per hash, resident hashes}. */
    final Map<String, double[]> cacheBytesPerHash = new LinkedHashMap<>();
    final List<double[]> coldStarts = new ArrayList<>();
    /** Per cache-mode cell: {narrowed probes, all probes, hydrations} from the service's metrics. */
    final Map<String, double[]> cacheProbes = new LinkedHashMap<>();
    final List<String[]> jmh = new ArrayList<>();
    final Map<String, String> machine = new LinkedHashMap<>();
    final List<String> problems = new ArrayList<>();
    /** The phases this invocation ran, in order (with a note when one was skipped). */
    final List<String> phases = new ArrayList<>();
    FloorPhase.Result floor;
    SpreadPhase.Result spread;
    LambdaColdStartPhase.Result lambda;
    DestinationsPhase.Result destinations;
    BenchDatabase db;

    /** Every phase, in the order a run takes them. */
    static final List<String> PHASES = List.of("lambda", "jmh", "sql", "http", "cold", "floor", "spread",
            "destinations");

    Suite(Map<String, String> args) {
        this.args = args;
        this.warmup = Duration.ofMillis((long) (Double.parseDouble(args.getOrDefault("warmup", "0.5")) * 1000));
        this.measure = Duration.ofMillis((long) (Double.parseDouble(args.getOrDefault("measure", "2")) * 1000));
        this.spreadMeasure = Duration.ofMillis((long) (Double.parseDouble(args.getOrDefault("spread-measure", "6")) * 1000));
        this.rounds = Integer.parseInt(args.getOrDefault("rounds", "3"));
        this.apiKey = args.getOrDefault("api-key", "exactly-bench-key");
    }

    /** Entry point; see the class comment for options. */
    public static void main(String[] argv) throws Exception {
        Map<String, String> args = new HashMap<>();
        for (int i = 0; i < argv.length; i++) {
            if (!argv[i].startsWith("--") || i + 1 >= argv.length) {
                throw new IllegalArgumentException("expected --name value pairs, got " + argv[i]);
            }
            args.put(argv[i].substring(2), argv[++i]);
        }
        new Suite(args).runAll();
        System.exit(0);
    }

    boolean wanted(String phase) {
        String only = args.get("only");
        boolean yes = only == null || List.of(only.split(",")).contains(phase);
        if (yes) {
            phases.add(phase);
        }
        return yes;
    }

    /** Refuses an --only that names no phase (a typo would otherwise run nothing and say nothing). */
    void checkOnly() {
        String only = args.get("only");
        if (only != null) {
            for (String p : only.split(",")) {
                if (!PHASES.contains(p)) {
                    throw new IllegalArgumentException("unknown phase " + p + " in --only; phases: " + PHASES);
                }
            }
        }
    }

    void runAll() throws Exception {
        checkOnly();
        long t = System.nanoTime();
        Files.createDirectories(work);
        Machine.describe(machine);
        machine.put("load average at start", Machine.loadAverage());
        String pgUrl = args.get("pg-url");
        db = pgUrl != null ? BenchDatabase.external(pgUrl)
                : BenchDatabase.embedded(args.getOrDefault("synchronous-commit", "on"));
        BenchDatabase started = db;
        Thread stopDb = new Thread(() -> {
            try {
                started.close();
            } catch (IOException ignored) {
                // going away
            }
        });
        Runtime.getRuntime().addShutdownHook(stopDb);
        try {
            db.prepare(root);
            machine.put("PostgreSQL", db.text("SELECT version()"));
            machine.put("PostgreSQL settings", db.text("SELECT string_agg(name || '=' || setting || coalesce(unit, ''), ', ' "
                    + "ORDER BY name) FROM pg_settings WHERE name IN ('synchronous_commit', 'shared_buffers', 'fsync', "
                    + "'full_page_writes', 'max_connections', 'track_functions', 'max_wal_size', 'wal_level')"));
            machine.put("PostgreSQL source", db.isEmbedded()
                    ? "embedded (io.zonky.test, started by the suite in a temporary data directory)" : pgUrl);
            // The Lambda package's cold start first, on the rested machine: it is the latency of
            // one starting process, and minutes of the suite's saturating load leave this host
            // slower at it for several minutes after, init (which touches no database) as much
            // as the whole start; the database waits idle meanwhile.
            if (wanted("lambda")) {
                lambda = new LambdaColdStartPhase(this).run();
                note("lambda", lambda.skipped != null ? lambda.skipped : lambda.failed);
            }
            if (wanted("jmh")) {
                log("JMH micro-benchmarks");
                jmh.addAll(Micro.run(work.resolve("jmh.json"), problems));
            }
            if (wanted("sql")) {
                sqlMatrix();
            }
            if (wanted("http")) {
                String modes = args.getOrDefault("modes", String.join(",", MODES.keySet()));
                phases.set(phases.size() - 1, "http (modes " + modes + ")");
                for (String mode : modes.split(",")) {
                    httpMode(mode);
                }
            }
            if (wanted("cold")) {
                coldStart();
            }
            if (wanted("floor")) {
                floor = new FloorPhase(this).run();
                note("floor", floor.skipped);
            }
            if (wanted("spread")) {
                spread = new SpreadPhase(this).run();
            }
            if (wanted("destinations")) {
                destinations = new DestinationsPhase(this).run();
                note("destinations", destinations.failed);
            }
        } finally {
            db.close();
            Runtime.getRuntime().removeShutdownHook(stopDb);
        }
        machine.put("load average at end", Machine.loadAverage());
        machine.put("suite wall time", String.format(Locale.ROOT, "%.0f s", (System.nanoTime() - t) / 1e9));
        Path out = Path.of(args.getOrDefault("out", "BENCHMARKS.md"));
        Files.writeString(out, new Report(this).markdown(), StandardCharsets.UTF_8);
        if (floor != null || spread != null || lambda != null) {
            System.out.println();
            System.out.print(new FloorSpreadLambdaReport(this).targets());
        }
        if (destinations != null) {
            System.out.println();
            System.out.print(new DestinationsReport(this).targets());
        }
        log("wrote " + out.toAbsolutePath());
    }

    /** Marks the last phase run as skipped or failed, for "Run conditions". */
    private void note(String phase, String why) {
        if (why != null) {
            phases.set(phases.lastIndexOf(phase), phase + " (not measured: " + why + ")");
        }
    }

    // ---------------------------------------------------------------- SQL level

    /** A scenario driven against one design or service mode, on a queue of its own. */
    record Cell(Scenario scenario, String target, String queue) {
    }

    private static Scenario sc(String id, String title, int items, int partitions, double dups, int occupancy,
                               int window, int concurrency) {
        return new Scenario(id, title, items, partitions, dups, occupancy, window, concurrency);
    }

    static final Scenario N100_P1 = sc("n100-p1", "100 items/request, 1 partition", 100, 1, 0, 0, 3600, 8);
    static final Scenario N100_P1_W0 = sc("n100-p1-w0", "100 items/request, 1 partition, dedupWindowSeconds 0",
            100, 1, 0, 0, 0, 8);
    static final Scenario N100_P1_C1 = sc("n100-p1-c1", "100 items/request, 1 partition, 1 call in flight", 100, 1, 0, 0, 3600, 1);
    static final Scenario N100_P1_W0_C1 = sc("n100-p1-w0-c1", "100 items/request, 1 partition, dedupWindowSeconds 0, 1 call in flight",
            100, 1, 0, 0, 0, 1);
    static final Scenario N100_P1000 = sc("n100-p1000", "100 items/request over 1,000 partitions", 100, 1000, 0, 0, 3600, 8);
    static final Scenario N100_P1000_W0 = sc("n100-p1000-w0", "100 items/request over 1,000 partitions, dedupWindowSeconds 0",
            100, 1000, 0, 0, 0, 8);
    static final Scenario N1_P1_SQL = sc("n1-p1", "1 item/request, 1 partition", 1, 1, 0, 0, 3600, 8);
    static final Scenario N1_P1_HTTP = sc("n1-p1", "1 item/request, 1 partition", 1, 1, 0, 0, 3600, 32);
    static final Scenario D10 = sc("n100-p1-d10", "100 items/request, 1 partition, 10% duplicates", 100, 1, 0.10, 0, 3600, 8);
    static final Scenario D50 = sc("n100-p1-d50", "100 items/request, 1 partition, 50% duplicates", 100, 1, 0.50, 0, 3600, 8);
    static final Scenario OCC3 = sc("occ1e3", "100 items/request, 1 partition, window pre-filled with 10^3 hashes",
            100, 1, 0, 1_000, 3600, 8);
    static final Scenario OCC5 = sc("occ1e5", "100 items/request, 1 partition, window pre-filled with 10^5 hashes",
            100, 1, 0, 100_000, 3600, 8);
    static final Scenario OCC3_C1 = sc("occ1e3-c1", "100 items/request, 1 partition, window pre-filled with 10^3 hashes, "
            + "1 call in flight", 100, 1, 0, 1_000, 3600, 1);
    static final Scenario OCC6_C1 = sc("occ1e6-c1", "100 items/request, 1 partition, window pre-filled with 10^6 hashes, "
            + "1 call in flight", 100, 1, 0, 1_000_000, 3600, 1);
    static final Scenario OCC6 = sc("occ1e6", "100 items/request, 1 partition, window pre-filled with 10^6 hashes",
            100, 1, 0, 1_000_000, 3600, 8);

    private static List<Cell> cells(String prefix, List<Scenario> scenarios, List<String> targets) {
        List<Cell> out = new ArrayList<>();
        for (Scenario sc : scenarios) {
            for (String t : targets) {
                out.add(new Cell(sc, t, prefix + "-" + sc.id() + "-" + t.replace('+', '-')));
            }
        }
        return out;
    }

    /**
     * The SQL-level groups. Cells of a group are compared with each other and run interleaved;
     * not every combination is run (see the report's "Matrix and method").
     */
    static List<List<Cell>> sqlGroups() {
        List<String> all = List.of("exactly", "naive", "scan", "plain");
        List<List<Cell>> g = new ArrayList<>();
        List<Cell> g1 = cells("sql", List.of(N100_P1), all);
        g1.addAll(cells("sql", List.of(N100_P1_W0, N100_P1_C1, N100_P1_W0_C1), List.of("exactly")));
        g.add(g1);
        List<Cell> g2 = cells("sql", List.of(N100_P1000), all);
        g2.addAll(cells("sql", List.of(N100_P1000_W0), List.of("exactly")));
        g.add(g2);
        g.add(cells("sql", List.of(N1_P1_SQL), all));
        g.add(cells("sql", List.of(D10, D50), List.of("exactly", "naive", "scan")));
        List<Cell> occ = cells("sql", List.of(OCC3, OCC5, OCC6), List.of("exactly", "scan"));
        occ.addAll(cells("sql", List.of(OCC3_C1, OCC6_C1), List.of("exactly")));
        g.add(occ);
        return g;
    }

    void sqlMatrix() throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            log("sql warm-up (not reported)");
            Pool warm = db.pool(vertx, 8);
            try {
                for (String fn : DESIGNS.values()) {
                    SqlLoad.run(warm, fn, Workload.of("sql-warmup-" + fn, 100, 10, 0.1),
                            new SqlLoad.Options(8, Duration.ZERO, Duration.ofSeconds(1), 1_000_000));
                }
            } finally {
                warm.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
            }
            for (List<Cell> group : sqlGroups()) {
                truncateAll();
                Map<Cell, Double> prefill = prepare(group);
                for (Cell c : group) {
                    if (c.scenario().occupancy() > 0 && !c.target().equals("scan")) {
                        log("settling " + c.queue() + " (not reported)");
                        Pool pool = db.pool(vertx, c.scenario().concurrency());
                        try {
                            SqlLoad.run(pool, DESIGNS.get(c.target()), c.scenario().workload(c.queue()),
                                    new SqlLoad.Options(c.scenario().concurrency(), Duration.ZERO, SETTLE, 1_000_000));
                        } finally {
                            pool.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
                        }
                    }
                }
                Map<Cell, List<LoadResult>> runs = new LinkedHashMap<>();
                Map<Cell, double[]> stats = new HashMap<>();
                for (int r = 0; r < rounds; r++) {
                    for (int i = 0; i < group.size(); i++) {
                        Cell c = group.get((i + r) % group.size());
                        String fn = DESIGNS.get(c.target());
                        double[] before = db.functionStats(fn);
                        double[] wal0 = db.walStats();
                        log("sql " + c.scenario().id() + " " + c.target() + " (round " + (r + 1) + "/" + rounds + ")");
                        Pool pool = db.pool(vertx, c.scenario().concurrency());
                        LoadResult res;
                        try {
                            res = SqlLoad.run(pool, fn, c.scenario().workload(c.queue()),
                                    new SqlLoad.Options(c.scenario().concurrency(), warmup, measure, 10_000_000));
                        } finally {
                            pool.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
                        }
                        Thread.sleep(300); // closed backends flush their function statistics on exit
                        double[] after = db.functionStats(fn);
                        double[] wal1 = db.walStats();
                        double[] acc = stats.computeIfAbsent(c, k -> new double[5]);
                        acc[0] += after[0] - before[0];
                        acc[1] += after[1] - before[1];
                        acc[2] += wal1[0] - wal0[0];
                        acc[3] += wal1[1] - wal0[1];
                        acc[4] += res.items() * (res.seconds() + warmup.toNanos() / 1e9) / res.seconds();
                        runs.computeIfAbsent(c, k -> new ArrayList<>()).add(res);
                        logResult(res);
                    }
                }
                for (Cell c : group) {
                    double[] acc = stats.get(c);
                    measurements.add(new Measurement("sql", c.target(), c.scenario(), LoadResult.merge(runs.get(c)),
                            perRound(runs.get(c)), acc[0] > 0 ? acc[1] / acc[0] : Double.NaN,
                            "pg_stat_user_functions total_time / calls of " + DESIGNS.get(c.target()), 1,
                            prefill.getOrDefault(c, 0.0), acc[4] > 0 ? acc[2] / acc[4] : Double.NaN,
                            acc[4] > 0 ? acc[3] / acc[4] : Double.NaN));
                }
            }
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
        truncateAll();
    }

    /** Pre-fills the windows and sets the windows a group's cells need; returns pre-fill seconds per cell. */
    Map<Cell, Double> prepare(List<Cell> group) throws Exception {
        Map<Cell, Double> prefill = new HashMap<>();
        for (Cell c : group) {
            if (c.scenario().occupancy() > 0) {
                log("pre-filling " + c.scenario().occupancy() + " hashes for " + c.queue());
                prefill.put(c, db.prefill(c.queue(), "p0", c.scenario().occupancy(),
                        c.target().equals("scan") ? "scan" : "exactly"));
            }
            if (c.scenario().windowSeconds() != 3600) {
                db.window(c.queue(), c.scenario().windowSeconds());
            }
            if (c.scenario().partitions() > 1) {
                // steady state: partitions exist before the runs (first contact creates them, under contention)
                db.execute("SELECT exactly.ensure_partitions(array_fill('" + c.queue() + "'::text, ARRAY["
                        + c.scenario().partitions() + "]), ARRAY(SELECT 'p' || i FROM generate_series(0, "
                        + (c.scenario().partitions() - 1) + ") i))");
            }
        }
        return prefill;
    }

    static double[] perRound(List<LoadResult> runs) {
        return runs.stream().mapToDouble(LoadResult::msgsPerSecond).toArray();
    }

    void truncateAll() throws Exception {
        db.execute("TRUNCATE exactly.messages, exactly.txn_hashes, exactly.partitions, exactly.queues, "
                + "bench.naive_hashes, bench.naive_messages, bench.ref_txns, bench.ref_messages, bench.plain_messages CASCADE",
                "VACUUM ANALYZE");
    }

    // ---------------------------------------------------------------- HTTP level

    /** The HTTP-level groups of one service mode. */
    static List<List<Cell>> httpGroups(String mode) {
        List<List<Cell>> g = new ArrayList<>();
        g.add(cells("http", List.of(N1_P1_HTTP), List.of(mode)));
        g.add(cells("http", List.of(N100_P1, N100_P1_W0, N100_P1000, D10, D50), List.of(mode)));
        g.add(cells("http", List.of(OCC3, OCC5, OCC6), List.of(mode)));
        return g;
    }

    /**
     * The JVM options that record a service with JFR (profile settings) into
     * {@code --profile DIR}/service-NAME.jfr, or none without {@code --profile}.
     *
     * @throws IOException if DIR cannot be created
     */
    List<String> recording(String name) throws IOException {
        if (!args.containsKey("profile")) {
            return List.of();
        }
        Path dir = Path.of(args.get("profile")).toAbsolutePath();
        Files.createDirectories(dir);
        return List.of("-XX:StartFlightRecording=settings=profile,filename=" + dir.resolve("service-" + name + ".jfr"));
    }

    void httpMode(String mode) throws Exception {
        Map<String, String> settings = MODES.get(mode);
        if (settings == null) {
            throw new IllegalArgumentException("unknown mode " + mode + "; known: " + MODES.keySet());
        }
        truncateAll();
        Path jar = Path.of(args.getOrDefault("jar", "target/quarkus-app/quarkus-run.jar"));
        log("service mode " + mode + " " + settings);
        List<String> jvm = recording(mode.replace('+', '-'));
        try (ServerProcess server = ServerProcess.start(jar, db.reactiveUrl(BenchDatabase.NAME), db.user(),
                sha256(apiKey), settings, work.resolve("service-" + mode.replace('+', '-') + ".log"), jvm)) {
            server.awaitFirstPush(apiKey, Duration.ofSeconds(120));
            if (!mode.equals("off")) {
                String missing = availability(mode, server);
                if (missing != null) {
                    modeStatus.put(mode, "not available yet: " + missing);
                    log(mode + ": " + missing);
                    return;
                }
            }
            modeStatus.put(mode, "measured");
            log("service warm-up (not reported)");
            for (Workload w : List.of(Workload.of("http-warmup-a", 100, 1, 0.1), Workload.of("http-warmup-b", 100, 100, 0),
                    Workload.of("http-warmup-c", 1, 1, 0))) {
                HttpLoad.run(new HttpLoad.Options(server.baseUrl(), apiKey, 8, Duration.ZERO, Duration.ofSeconds(2), 1_000_000), w);
            }
            for (List<Cell> group : httpGroups(mode)) {
                Map<Cell, Double> prefill = prepare(group);
                for (Cell c : group) {
                    if (c.scenario().occupancy() > 0) {
                        log("settling " + c.queue() + " (not reported)");
                        HttpLoad.run(new HttpLoad.Options(server.baseUrl(), apiKey, c.scenario().concurrency(), Duration.ZERO,
                                SETTLE, 1_000_000), c.scenario().workload(c.queue()));
                    }
                }
                Map<Cell, List<LoadResult>> runs = new LinkedHashMap<>();
                Map<Cell, double[]> sql = new HashMap<>();
                for (int r = 0; r < rounds; r++) {
                    for (int i = 0; i < group.size(); i++) {
                        Cell c = group.get((i + r) % group.size());
                        Map<String, Double> m0 = server.metrics();
                        log("http " + mode + " " + c.scenario().id() + " (round " + (r + 1) + "/" + rounds + ")");
                        LoadResult res = HttpLoad.run(new HttpLoad.Options(server.baseUrl(), apiKey,
                                c.scenario().concurrency(), warmup, measure, 10_000_000), c.scenario().workload(c.queue()));
                        Map<String, Double> m1 = server.metrics();
                        double[] acc = sql.computeIfAbsent(c, k -> new double[6]);
                        acc[0] += delta(m0, m1, "postgresql_processing_seconds_count");
                        acc[1] += delta(m0, m1, "postgresql_processing_seconds_sum");
                        acc[2] += delta(m0, m1, "http_server_requests_seconds_count");
                        acc[3] += delta(m0, m1, "exactly_dedup_probes_total{kind=\"narrowed\"}");
                        acc[4] += delta(m0, m1, "exactly_dedup_probes_total");
                        acc[5] += delta(m0, m1, "exactly_dedup_cache_hydrations_total");
                        runs.computeIfAbsent(c, k -> new ArrayList<>()).add(res);
                        logResult(res);
                        if (!mode.equals("off")) {
                            double[] bph = bytesPerHash(m1);
                            if (bph != null) {
                                cacheBytesPerHash.put(mode + ", after " + c.scenario().id() + " (round " + (r + 1) + ")", bph);
                            }
                        }
                    }
                }
                for (Cell c : group) {
                    double[] acc = sql.get(c);
                    measurements.add(new Measurement("http", mode, c.scenario(), LoadResult.merge(runs.get(c)),
                            perRound(runs.get(c)), acc[0] > 0 ? acc[1] * 1000 / acc[0] : Double.NaN,
                            "in the service: Vert.x SQL client metric postgresql_processing_seconds (sum / count)",
                            acc[2] > 0 ? acc[0] / acc[2] : Double.NaN, prefill.getOrDefault(c, 0.0), Double.NaN, Double.NaN));
                    if (acc[4] > 0) {
                        cacheProbes.put(mode + " / " + c.scenario().title(), new double[] {acc[3], acc[4], acc[5]});
                    }
                }
            }
        }
    }

    /** Null when the mode's feature is present in this build, else why it is taken to be absent. */
    String availability(String mode, ServerProcess server) throws Exception {
        Map<String, Double> m = server.metrics();
        boolean cache = m.keySet().stream().anyMatch(k -> CACHE_METRIC.matcher(k).matches());
        if (!cache) {
            return "the service exposes no dedup-cache metric (pattern " + CACHE_METRIC.pattern() + ")";
        }
        if (mode.contains("fusion")) {
            boolean fusionMetric = m.keySet().stream().anyMatch(k -> FUSION_METRIC.matcher(k).matches());
            // behavioural check: concurrent single-item pushes to one partition fuse into fewer SQL calls
            Map<String, Double> m0 = server.metrics();
            HttpLoad.run(new HttpLoad.Options(server.baseUrl(), apiKey, 32, Duration.ZERO, Duration.ofSeconds(1), 100_000),
                    Workload.of("http-fusion-probe", 1, 1, 0));
            Map<String, Double> m1 = server.metrics();
            double calls = delta(m0, m1, "postgresql_processing_seconds_count");
            double requests = delta(m0, m1, "http_server_requests_seconds_count");
            if (!fusionMetric && (requests <= 0 || calls >= 0.9 * requests)) {
                return String.format(Locale.ROOT, "no fusion metric (pattern %s) and no fusion seen: %.0f SQL calls for %.0f "
                        + "concurrent single-item requests", FUSION_METRIC.pattern(), calls, requests);
            }
        }
        return null;
    }

    /** {resident bytes / resident hashes, resident hashes}, or null without cache metrics. */
    static double[] bytesPerHash(Map<String, Double> m) {
        double bytes = 0;
        double hashes = 0;
        for (Map.Entry<String, Double> e : m.entrySet()) {
            if (CACHE_BYTES.matcher(e.getKey()).matches()) {
                bytes += e.getValue();
            } else if (CACHE_HASHES.matcher(e.getKey()).matches()) {
                hashes += e.getValue();
            }
        }
        return hashes > 0 ? new double[] {bytes / hashes, hashes} : null;
    }

    static double delta(Map<String, Double> a, Map<String, Double> b, String name) {
        return b.getOrDefault(name, 0.0) - a.getOrDefault(name, 0.0);
    }

    // ---------------------------------------------------------------- cold start

    /**
     * Three starts of the service to its first answered push; where the build wrote an AppCDS archive
     * next to the jar (app-cds.jsa, quarkus.package.jar.appcds.enabled), each round also starts it with
     * the archive ({@code -XX:SharedArchiveFile}), right after the start without; both in the jar's
     * directory, where the archive's relative class path resolves.
     */
    void coldStart() throws Exception {
        Path jar = Path.of(args.getOrDefault("jar", "target/quarkus-app/quarkus-run.jar"));
        Path archive = jar.resolveSibling("app-cds.jsa");
        boolean withArchive = Files.isRegularFile(archive);
        for (int i = 0; i < 3; i++) {
            log("cold start " + (i + 1));
            double[] start = new double[withArchive ? 4 : 2];
            for (int a = 0; a < (withArchive ? 2 : 1); a++) {
                // -Xshare:on: a start that cannot use the archive fails instead of measuring a start without it
                List<String> options = a == 0 ? List.of() : List.of("-XX:SharedArchiveFile=" + archive.getFileName(), "-Xshare:on");
                try (ServerProcess server = ServerProcess.start(jar, db.reactiveUrl(BenchDatabase.NAME), db.user(),
                        sha256(apiKey), MODES.get("off"),
                        work.resolve("service-coldstart-" + i + (a == 0 ? "" : "-appcds") + ".log").toAbsolutePath(), options, true)) {
                    start[2 * a] = server.awaitFirstPush(apiKey, Duration.ofSeconds(120));
                    start[2 * a + 1] = server.reportedStartMillis();
                }
            }
            coldStarts.add(start);
        }
    }

    // ---------------------------------------------------------------- helpers

    static String sha256(String key) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)));
    }

    static void log(String s) {
        System.out.println("[bench " + ZonedDateTime.now().toLocalTime().withNano(0) + "] " + s);
    }

    static void logResult(LoadResult r) {
        log(String.format(Locale.ROOT, "  %.0f msgs/s, %.0f req/s, p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, dup %.1f%%, errors %d%s",
                r.msgsPerSecond(), r.requestsPerSecond(), r.p50Ms(), r.p99Ms(), r.p999Ms(), 100 * r.duplicateFraction(),
                r.errors(), r.firstError() == null ? "" : " (" + r.firstError() + ")"));
    }

    /** Files under the repo, for the report. */
    Path root() {
        return root;
    }

    static String read(Path p) {
        try {
            return Files.exists(p) ? Files.readString(p) : null;
        } catch (IOException e) {
            return null;
        }
    }
}
