package dev.exactly.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The issue 16.3 and 16.4 targets, over HTTP, in one interleaved run (bench/spread/run): two
 * services on one PostgreSQL, the stateless shape (cache and fusion off, as the Lambda runs) and
 * server mode (cache + fusion), 16 producers of single messages each, cells interleaved round by
 * round:
 * <ul>
 *   <li>stateless, one partition;</li>
 *   <li>stateless, one queue with spreadPartitions 16 (items name no partition);</li>
 *   <li>stateless, 16 partitions, one producer each;</li>
 *   <li>server mode, 16 partitions, one producer each;</li>
 *   <li>server mode, the spread queue (for reference).</li>
 * </ul>
 * Prints a Markdown table and the two ratios: spread ÷ one partition (target ≥ 3) and server ÷
 * stateless at one producer per partition (target ≥ 1). Options: {@code --rounds N} (3),
 * {@code --warmup S} (1), {@code --measure S} (4), {@code --clients N} (16), {@code --pg-url URL}
 * (default: an embedded PostgreSQL with durable commits), {@code --jar PATH}.
 */
public final class SpreadBench {

    private SpreadBench() {
    }

    /** One measured cell: which service, which load. */
    private record Cell(String title, String mode, Workload workload) {
    }

    /**
     * Runs the comparison.
     *
     * @param argv options as above
     * @throws Exception when the database or a service cannot start, or a request setting up fails
     */
    public static void main(String[] argv) throws Exception {
        Map<String, String> args = new LinkedHashMap<>();
        for (int i = 0; i + 1 < argv.length; i += 2) {
            args.put(argv[i].replaceFirst("^--", ""), argv[i + 1]);
        }
        int rounds = Integer.parseInt(args.getOrDefault("rounds", "3"));
        Duration warmup = Duration.ofSeconds(Long.parseLong(args.getOrDefault("warmup", "1")));
        Duration measure = Duration.ofSeconds(Long.parseLong(args.getOrDefault("measure", "4")));
        int clients = Integer.parseInt(args.getOrDefault("clients", "16"));
        String apiKey = "exactly-bench-key";
        Path root = Path.of("").toAbsolutePath();
        Path work = Files.createDirectories(root.resolve("target/bench-spread"));
        Path jar = Path.of(args.getOrDefault("jar", "target/quarkus-app/quarkus-run.jar"));
        BenchDatabase db = args.containsKey("pg-url") ? BenchDatabase.external(args.get("pg-url"))
                : BenchDatabase.embedded("on");
        String load0 = Machine.loadAverage();
        try {
            db.prepare(root);
            try (ServerProcess stateless = ServerProcess.start(jar, db.reactiveUrl(BenchDatabase.NAME), db.user(),
                    Suite.sha256(apiKey), Suite.MODES.get("off"), work.resolve("service-off.log"));
                 ServerProcess server = ServerProcess.start(jar, db.reactiveUrl(BenchDatabase.NAME), db.user(),
                         Suite.sha256(apiKey), Suite.MODES.get("cache+fusion"), work.resolve("service-cache-fusion.log"))) {
                stateless.awaitFirstPush(apiKey, Duration.ofSeconds(120));
                server.awaitFirstPush(apiKey, Duration.ofSeconds(120));
                Map<String, ServerProcess> services = Map.of("off", stateless, "cache+fusion", server);
                spread(stateless.baseUrl(), apiKey, "spread16-off", 16);
                spread(stateless.baseUrl(), apiKey, "spread16-fused", 16);
                List<Cell> cells = List.of(
                        new Cell("stateless, 1 partition", "off", Workload.of("one-off", 1, 1, 0)),
                        new Cell("stateless, spread queue (spreadPartitions 16)", "off", Workload.of("spread16-off", 1, 0, 0)),
                        new Cell("stateless, 16 partitions, one producer each", "off",
                                new Workload("pinned-off", 1, 16, 0, 64, true)),
                        new Cell("server mode, 16 partitions, one producer each", "cache+fusion",
                                new Workload("pinned-fused", 1, 16, 0, 64, true)),
                        new Cell("server mode, spread queue (spreadPartitions 16)", "cache+fusion",
                                Workload.of("spread16-fused", 1, 0, 0)));
                for (Cell c : cells) { // warm-up, not reported
                    HttpLoad.run(new HttpLoad.Options(services.get(c.mode()).baseUrl(), apiKey, clients, Duration.ZERO,
                            Duration.ofSeconds(2), 1_000_000), c.workload());
                }
                Map<Cell, List<LoadResult>> runs = new LinkedHashMap<>();
                for (int r = 0; r < rounds; r++) {
                    for (int i = 0; i < cells.size(); i++) {
                        Cell c = cells.get((i + r) % cells.size());
                        Suite.log(c.title() + " (round " + (r + 1) + "/" + rounds + ")");
                        LoadResult res = HttpLoad.run(new HttpLoad.Options(services.get(c.mode()).baseUrl(), apiKey,
                                clients, warmup, measure, 100_000_000), c.workload());
                        Suite.logResult(res);
                        runs.computeIfAbsent(c, k -> new ArrayList<>()).add(res);
                    }
                }
                report(cells, runs, rounds, warmup, measure, clients, load0);
            }
        } finally {
            db.close();
        }
    }

    private static void spread(URI base, String apiKey, String queue, int n) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(base.resolve("/api/v1/queues/" + queue))
                .header("Authorization", "Bearer " + apiKey).header("Content-Type", "application/json")
                .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"options\":{\"spreadPartitions\":" + n + "}}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("PATCH " + queue + ": " + r.statusCode() + " " + r.body());
        }
    }

    private static void report(List<Cell> cells, Map<Cell, List<LoadResult>> runs, int rounds, Duration warmup,
                               Duration measure, int clients, String load0) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%n%d producers, 1 item per request, %d rounds x (%d s warm-up + %d s measured), "
                        + "cells interleaved; load average %s at start, %s at end%n%n", clients, rounds, warmup.toSeconds(),
                measure.toSeconds(), load0, Machine.loadAverage()));
        b.append("| cell | msgs/s | rounds (msgs/s) | p50 ms | p99 ms | errors |\n| --- | ---: | --- | ---: | ---: | ---: |\n");
        Map<Cell, Double> rate = new LinkedHashMap<>();
        for (Cell c : cells) {
            LoadResult m = LoadResult.merge(runs.get(c));
            rate.put(c, m.msgsPerSecond());
            List<String> per = new ArrayList<>();
            for (LoadResult r : runs.get(c)) {
                per.add(String.format(Locale.ROOT, "%,.0f", r.msgsPerSecond()));
            }
            b.append(String.format(Locale.ROOT, "| %s | %,.0f | %s | %.2f | %.2f | %d |%n", c.title(), m.msgsPerSecond(),
                    String.join(", ", per), m.p50Ms(), m.p99Ms(), m.errors()));
        }
        double one = rate.get(cells.get(0));
        double spread = rate.get(cells.get(1));
        double pinnedOff = rate.get(cells.get(2));
        double pinnedServer = rate.get(cells.get(3));
        b.append(String.format(Locale.ROOT, "%nstateless, spread queue (16) / one partition: %.2fx (target >= 3)%n", spread / one));
        b.append(String.format(Locale.ROOT, "server mode / stateless, 16 partitions one producer each: %.2fx (target >= 1)%n",
                pinnedServer / pinnedOff));
        System.out.print(b);
    }
}
