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
import java.util.Map;
import java.util.UUID;

/**
 * The first pushes after a start against the steady state, for the server shape
 * (target/quarkus-app/quarkus-run.jar with its defaults: cache and fusion on), the sibling of the
 * Lambda package's FirstPushesBench: one-item pushes of new ids, one after the other over one
 * keep-alive HTTP/1.1 connection, the first N timed from the first answered push (the poll that
 * waits for the start, {@link ServerProcess#awaitFirstPush}) and N more after another M (the steady
 * state), into a queue of its own per start. Each round starts the service twice in turn, without
 * and with the AppCDS archive the build writes next to the jar ({@code -XX:SharedArchiveFile=app-cds.jsa}),
 * on one database migrated before the first start (as the suite's cold phase does, so that no start
 * includes a migration). Ratio = the first N's pushes/s ÷ the steady N's
 * (issue 41's target: at least 0.8). Both start in the jar's directory as {@code java -jar
 * quarkus-run.jar}, the archive's class path being relative to it; the start with the archive has
 * {@code -Xshare:on}, so that one whose archive the JVM cannot use (another JDK build) fails.
 *
 * <p>Three more starts run the aot-jar package a JDK 25 built ({@code --aot-jar}, bench/server-aot)
 * on that JDK ({@code --java25}): {@code jdk25} without an AOT cache (the JVM's and the packaging's
 * own effect), {@code aot} with the cache trained on the push path ({@code -XX:AOTCache=app.aot},
 * dev.exactly.bench.ServerAotTraining), {@code aot-startup} with Quarkus' own cache of the
 * start-up alone ({@code app-startup.aot}). The two with a cache have {@code -XX:AOTMode=on}, so
 * that one the JVM cannot use fails instead of measuring a start without it.
 *
 * <p>Arguments: {@code [--runs R (2)] [--pushes N (1000)] [--steady-after M (3000)]
 * [--pg-url jdbc:postgresql://HOST:PORT/postgres (default: an embedded PostgreSQL, durable commits)]
 * [--jar target/quarkus-app/quarkus-run.jar] [--aot-jar target/aot/quarkus-run.jar]
 * [--java25 /usr/lib/jvm/temurin-25-jdk-amd64/bin/java] [--starts no-archive,app-cds]}. A start is
 * {@code no-archive}, {@code app-cds}, {@code jdk25}, {@code aot} or {@code aot-startup}, optionally
 * followed by {@code :rounds=K}, the push path's rounds primed in memory before the listener opens ({@code exactly.priming.rounds}; 0: none),
 * and last by {@code :jvm=OPTION} (one JVM option, e.g. {@code :jvm=-XX:TieredStopAtLevel=1}), e.g.
 * {@code --starts app-cds:rounds=0,app-cds} compares the start without priming and with the default. Run from the repository root after
 * {@code mvn -B -q -Pserver,bench package -DskipTests} and the bench classpath (see bench/run).
 * Loopback only.
 */
public final class ServerFirstPushesBench {

    private ServerFirstPushesBench() {
    }

    /**
     * @param args see the class comment
     * @throws Exception when the service cannot be started or a push is not answered 200
     */
    public static void main(String[] args) throws Exception {
        int runs = 2;
        int pushes = 1000;
        int steadyAfter = 3000;
        String pgUrl = null;
        Path jar = Path.of("target", "quarkus-app", "quarkus-run.jar");
        Path aotJar = Path.of("target", "aot", "quarkus-run.jar");
        Path java25 = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64/bin/java");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> starts = List.of("no-archive", "app-cds");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--pushes" -> pushes = Integer.parseInt(args[++i]);
                case "--steady-after" -> steadyAfter = Integer.parseInt(args[++i]);
                case "--pg-url" -> pgUrl = args[++i];
                case "--jar" -> jar = Path.of(args[++i]);
                case "--aot-jar" -> aotJar = Path.of(args[++i]);
                case "--java25" -> java25 = Path.of(args[++i]);
                case "--starts" -> starts = List.of(args[++i].split(","));
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        Path archive = jar.resolveSibling("app-cds.jsa");
        for (String start : starts) {
            String kind = start.split(":")[0];
            Path needed = switch (kind) {
                case "no-archive" -> jar;
                case "app-cds" -> archive;
                case "jdk25" -> aotJar;
                case "aot" -> aotJar.resolveSibling("app.aot");
                case "aot-startup" -> aotJar.resolveSibling("app-startup.aot");
                default -> throw new IllegalArgumentException("unknown start " + start);
            };
            if (!Files.isRegularFile(needed)) {
                throw new IllegalStateException("no " + needed + " for the start " + start
                        + (kind.equals("jdk25") || kind.startsWith("aot") ? ": run bench/server-aot" : ": build with -Pserver"));
            }
        }
        String apiKey = UUID.randomUUID().toString();
        Path work = Path.of("target", "bench", "first-pushes");
        Map<String, List<Double>> ratios = new LinkedHashMap<>();
        try (BenchDatabase db = pgUrl == null ? BenchDatabase.embedded("on") : BenchDatabase.external(pgUrl)) {
            db.prepare(Path.of("").toAbsolutePath());
            System.out.printf("load average at start: %s%n", loadAverage());
            System.out.printf("%-22s %4s %12s %18s %18s %8s%n", "start", "run", "first push ms", "first N pushes/s",
                    "steady pushes/s", "ratio");
            for (int run = 1; run <= runs; run++) {
                for (String start : starts) {
                    // -Xshare:on, -XX:AOTMode=on: a start that cannot use its archive or cache fails instead of
                    // measuring a start without it
                    String kind = start.split(":")[0];
                    List<String> jvm = new ArrayList<>(switch (kind) {
                        case "app-cds" -> List.of("-XX:SharedArchiveFile=" + archive.getFileName(), "-Xshare:on");
                        case "aot" -> List.of("-XX:AOTCache=app.aot", "-XX:AOTMode=on");
                        case "aot-startup" -> List.of("-XX:AOTCache=app-startup.aot", "-XX:AOTMode=on");
                        default -> List.of();
                    });
                    boolean onJdk25 = kind.equals("jdk25") || kind.startsWith("aot");
                    Map<String, String> settings = new LinkedHashMap<>();
                    int option = start.indexOf(":jvm=");
                    if (option >= 0) {
                        jvm.add(start.substring(option + ":jvm=".length())); // the rest: an option may hold a colon
                    }
                    for (String part : (option < 0 ? start : start.substring(0, option)).split(":")) {
                        if (part.startsWith("rounds=")) {
                            settings.put("exactly.priming.rounds", part.substring("rounds=".length()));
                        }
                    }
                    Path log = work.resolve("service-" + start.replaceAll("[^A-Za-z0-9=-]", "-") + "-" + run + ".log");
                    double firstPushMs;
                    double[] rates;
                    try (ServerProcess server = ServerProcess.start(onJdk25 ? java25 : java, onJdk25 ? aotJar : jar,
                            db.reactiveUrl(BenchDatabase.NAME), db.user(),
                            Suite.sha256(apiKey), settings, log.toAbsolutePath(), jvm, true)) {
                        firstPushMs = server.awaitFirstPush(apiKey, Duration.ofSeconds(120));
                        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                        String queue = "first-pushes-" + start.replaceAll("[^a-z0-9-]", "-") + "-" + run;
                        long first = timed(http, server.baseUrl(), apiKey, queue, "a", pushes);
                        timed(http, server.baseUrl(), apiKey, queue, "b", steadyAfter);
                        long steady = timed(http, server.baseUrl(), apiKey, queue, "c", pushes);
                        rates = new double[] {pushes * 1e9 / first, pushes * 1e9 / steady};
                    }
                    double ratio = rates[0] / rates[1];
                    ratios.computeIfAbsent(start, k -> new ArrayList<>()).add(ratio);
                    System.out.printf("%-22s %4d %12.0f %18.0f %18.0f %8.2f%n", start, run, firstPushMs, rates[0], rates[1], ratio);
                }
            }
            System.out.printf("load average at end: %s%n", loadAverage());
            int n = pushes;
            ratios.forEach((start, r) -> System.out.printf("%s: median ratio of the first %d pushes to the steady state %.2f "
                    + "(target >= 0.8: %s)%n", start, n, median(r), median(r) >= 0.8 ? "met" : "not met"));
        }
    }

    /** n one-item pushes of new ids into the queue, one after the other; their nanoseconds. */
    private static long timed(HttpClient http, URI base, String apiKey, String queue, String prefix, int n) throws Exception {
        URI push = base.resolve("/api/v1/push");
        long start = System.nanoTime();
        long[] tenths = new long[10];
        for (int i = 0; i < n; i++) {
            String body = "{\"items\":[{\"queue\":\"" + queue + "\",\"transactionId\":\"" + prefix + "-" + i + "-" + System.nanoTime()
                    + "\",\"payload\":{\"n\":" + i + "}}]}";
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(push).timeout(Duration.ofSeconds(60))
                    .header("Content-Type", "application/json").header("Authorization", "Bearer " + apiKey)
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200 || !r.body().contains("\"queued\"")) {
                throw new IllegalStateException(prefix + " push " + i + ": HTTP " + r.statusCode() + " " + r.body());
            }
            if ((i + 1) % Math.max(1, n / 10) == 0 && (i + 1) / Math.max(1, n / 10) <= 10) {
                tenths[(i + 1) / Math.max(1, n / 10) - 1] = System.nanoTime();
            }
        }
        long end = System.nanoTime();
        StringBuilder line = new StringBuilder("  " + prefix + ": ms per tenth of " + n + ":");
        long from = start;
        for (long t : tenths) {
            line.append(' ').append(t == 0 ? "-" : String.format("%.0f", (t - from) / 1e6));
            from = t == 0 ? from : t;
        }
        System.out.println(line);
        return end - start;
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (Exception e) {
            return "unknown";
        }
    }

    private static double median(List<Double> values) {
        List<Double> v = values.stream().sorted().toList();
        return v.size() % 2 == 1 ? v.get(v.size() / 2) : (v.get(v.size() / 2 - 1) + v.get(v.size() / 2)) / 2;
    }
}
