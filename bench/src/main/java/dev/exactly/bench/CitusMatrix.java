package dev.exactly.bench;

import dev.exactly.engine.PushRepository;
import dev.exactly.engine.RequestGrouping;
import dev.exactly.engine.SegmentOutcome;
import dev.exactly.testing.CitusCluster;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.sqlclient.Pool;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The SQL-level push on a Citus cluster beside a single PostgreSQL, in one run: 100 items per call
 * into 1 partition and over 1,000 partitions, each sent as the engine sends it (its probe client
 * {@link PushRepository}: a single partition whose id it learnt goes to {@code exactly.push_segment},
 * which Citus delegates to the worker holding the partition; a multi-partition bundle goes to
 * {@code exactly.push_bundle} on the coordinator). Cells run interleaved round by round, so each
 * ratio is measured minutes apart on the same machine. Prints a Markdown table (BENCHMARKS.md,
 * "Citus").
 *
 * <pre>
 * java -cp … dev.exactly.bench.CitusMatrix --citus-url postgresql://postgres@127.0.0.1:9700/exactly \
 *     --pg-url jdbc:postgresql://127.0.0.1:5432/postgres [--rounds 3] [--warmup 0.5] [--measure 2]
 * </pre>
 *
 * The cluster's database is emptied, migrated and distributed ({@link CitusCluster#prepare()}, which
 * refuses a database whose schema it did not create); the single node gets the suite's benchmark
 * database ({@link BenchDatabase#prepare}).
 */
public final class CitusMatrix {

    private CitusMatrix() {
    }

    /** Entry point; see the class comment. */
    public static void main(String[] argv) throws Exception {
        Map<String, String> args = new HashMap<>();
        for (int i = 0; i + 1 < argv.length; i += 2) {
            args.put(argv[i].replaceFirst("^--", ""), argv[i + 1]);
        }
        int rounds = Integer.parseInt(args.getOrDefault("rounds", "3"));
        Duration warmup = Duration.ofMillis((long) (Double.parseDouble(args.getOrDefault("warmup", "0.5")) * 1000));
        Duration measure = Duration.ofMillis((long) (Double.parseDouble(args.getOrDefault("measure", "2")) * 1000));
        CitusCluster.Target cluster = CitusCluster.prepare(CitusCluster.parse(args.get("citus-url")));
        BenchDatabase single = BenchDatabase.external(args.getOrDefault("pg-url", "jdbc:postgresql://127.0.0.1:5432/postgres"));
        single.prepare(Path.of("").toAbsolutePath());

        Vertx vertx = Vertx.vertx();
        Map<String, Pool> pools = new LinkedHashMap<>();
        pools.put("single node", TargetPools.pool(vertx, single.reactiveUrl(BenchDatabase.NAME), single.user(), null, 8));
        pools.put("Citus, 2 workers", cluster.pool(vertx, 8));
        List<Scenario> scenarios = List.of(Suite.N100_P1, Suite.N100_P1000);
        Map<String, List<LoadResult>> runs = new LinkedHashMap<>();
        Map<String, PushRepository> repos = new HashMap<>();
        for (int r = 0; r < rounds; r++) {
            for (Scenario sc : scenarios) {
                for (Map.Entry<String, Pool> t : pools.entrySet()) {
                    String key = sc.title() + "|" + t.getKey();
                    PushRepository repo = repos.computeIfAbsent(key, k -> new PushRepository(t.getValue()));
                    Workload w = sc.workload("citus-" + sc.id());
                    LoadResult res = ClosedLoop.run(w, new ClosedLoop.Options(sc.concurrency(), warmup, measure,
                            Long.MAX_VALUE), batch -> {
                                RequestGrouping g = RequestGrouping.of(SqlLoad.commands(w, batch));
                                return repo.push(g.segments()).map(outs -> {
                                    int d = g.size();
                                    for (SegmentOutcome o : outs) {
                                        d -= o.offsets().length;
                                        for (boolean dup : o.duplicate()) {
                                            d += dup ? 1 : 0;
                                        }
                                    }
                                    return d;
                                }).subscribeAsCompletionStage();
                            });
                    runs.computeIfAbsent(key, k -> new ArrayList<>()).add(res);
                    System.err.printf(Locale.ROOT, "round %d %-45s %-18s %,8.0f msgs/s%n", r + 1, sc.title(), t.getKey(),
                            res.msgsPerSecond());
                }
            }
        }
        System.out.println("| scenario | database | msgs/s | rounds (msgs/s) | calls/s | p50 ms | p99 ms | errors | Citus ÷ single |");
        System.out.println("| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |");
        for (Scenario sc : scenarios) {
            double base = LoadResult.merge(runs.get(sc.title() + "|single node")).msgsPerSecond();
            for (String t : pools.keySet()) {
                List<LoadResult> rs = runs.get(sc.title() + "|" + t);
                LoadResult m = LoadResult.merge(rs);
                StringBuilder per = new StringBuilder();
                for (LoadResult x : rs) {
                    per.append(per.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%,.0f", x.msgsPerSecond()));
                }
                System.out.printf(Locale.ROOT, "| %s | %s | %,.0f | %s | %,.0f | %.2f | %.2f | %d | %s |%n", sc.title(), t,
                        m.msgsPerSecond(), per, m.requestsPerSecond(), m.p50Ms(), m.p99Ms(), m.errors(),
                        t.equals("single node") ? "" : String.format(Locale.ROOT, "%.2f×", m.msgsPerSecond() / base));
                if (m.firstError() != null) {
                    System.out.println("<!-- first error: " + m.firstError() + " -->");
                }
            }
        }
        for (Pool p : pools.values()) {
            p.closeAndAwait();
        }
        vertx.closeAndAwait();
        single.close();
        System.exit(0);
    }

    /** Pools of the reactive client on a URL. */
    static final class TargetPools {
        private TargetPools() {
        }

        static Pool pool(Vertx vertx, String url, String user, String password, int max) {
            return CitusCluster.parse(url.replaceFirst("^postgresql://", "postgresql://" + user + "@")).pool(vertx, max);
        }
    }
}
