package dev.exactly.lambda.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.exactly.testing.Api;
import dev.exactly.testing.TestDatabase;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Cold start of function.zip packages under the AWS Lambda Java runtime interface client, side by
 * side in one run (bench/lambda-cold-start drives {@link #main}; bench/run's lambda phase calls
 * {@link #measure}): for each round, each package in turn is started in a fresh JVM on its own
 * unzipped task directory, exactly as {@link FunctionProcess} starts it for LambdaRuntimeIT (the JVM
 * flags the managed runtime passes, JAVA_TOOL_OPTIONS from infra/terraform/function.tf unless a
 * package names its own), and timed from process start to the answer of its first one-item push
 * (and to its first /invocation/next poll: initialisation). {@link #main}'s database is the tests'
 * embedded PostgreSQL, migrated once; no SnapStart. Prints each run, then the medians and each
 * package's ratio to the first one.
 *
 * <p>After the timed rounds, each package is started once more with {@code -Xlog:class+load} added
 * to its JAVA_TOOL_OPTIONS (untimed: logging slows the start) and the classes loaded from process
 * start to the first answer are counted; the list is kept in
 * {@code target/cold-start-classes-NAME.log} for comparing packages.
 *
 * <p>Arguments: {@code --runs N} (default 5), then one or more
 * {@code NAME=ZIP[|JAVA_TOOL_OPTIONS[|JAVA_HOME]]} (the first is the reference of the ratios; an
 * empty JAVA_TOOL_OPTIONS means function.tf's; JAVA_HOME runs that package on another JDK, e.g.
 * the managed runtime's Java version, instead of this driver's).
 */
public final class ColdStartBench {

    private static final ObjectMapper JSON = new ObjectMapper();

    private ColdStartBench() {
    }

    /**
     * A package to start.
     *
     * @param name        names it in the output, its task directory and its class list
     * @param zip         the function.zip
     * @param toolOptions JAVA_TOOL_OPTIONS, or null for infra/terraform/function.tf's value
     * @param javaHome    the JDK that runs it, or null for {@link FunctionProcess#defaultJavaHome()}
     */
    public record Variant(String name, Path zip, String toolOptions, Path javaHome) {
        /** A package run on {@link FunctionProcess#defaultJavaHome()}. */
        public Variant(String name, Path zip, String toolOptions) {
            this(name, zip, toolOptions, null);
        }
    }

    /**
     * What one package measured.
     *
     * @param name          the variant's name
     * @param runs          per start, in order: {init ms (start to first /invocation/next), start to first answered push ms,
     *                      the function process' CPU time (user + system, all threads) at that answer, ms}
     * @param classesLoaded classes loaded from process start to the first answer (the -Xlog:class+load start)
     */
    public record Result(String name, List<long[]> runs, long classesLoaded) {
        /** Median init, ms. */
        public long medianInitMillis() {
            return median(runs, 0);
        }

        /** Median process start to first answered push, ms. */
        public long medianFirstPushMillis() {
            return median(runs, 1);
        }

        /**
         * Median CPU time the function process used up to its first answer, ms: steadier than the wall
         * time on a shared machine, where other processes take the cores for part of the start.
         */
        public long medianCpuMillis() {
            return median(runs, 2);
        }
    }

    /**
     * @param args see the class comment
     * @throws Exception when a package cannot be started or does not answer
     */
    public static void main(String[] args) throws Exception {
        int runs = 5;
        List<Variant> variants = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--runs")) {
                runs = Integer.parseInt(args[++i]);
            } else {
                String[] nameRest = args[i].split("=", 2);
                String[] zipOptions = nameRest[1].split("\\|", 3);
                String options = zipOptions.length > 1 && !zipOptions[1].isEmpty() ? zipOptions[1] : null;
                variants.add(new Variant(nameRest[0], Path.of(zipOptions[0]), options,
                        zipOptions.length > 2 ? Path.of(zipOptions[2]) : null));
            }
        }
        if (variants.isEmpty()) {
            throw new IllegalArgumentException("usage: ColdStartBench [--runs N] NAME=ZIP[|JAVA_TOOL_OPTIONS[|JAVA_HOME]] ...");
        }
        String db = TestDatabase.createMigratedDatabase();
        List<Result> results = measure(runs, variants, TestDatabase.reactiveUrl(db), "postgres", System.out);
        long reference = -1;
        long referenceClasses = -1;
        String name = "%-" + nameWidth(variants) + "s";
        System.out.printf("%n" + name + " %12s %16s %8s %14s %8s %16s %8s%n", "package", "median init", "median first push", "ratio",
                "median CPU", "ratio", "classes loaded", "ratio");
        long referenceCpu = -1;
        for (Result r : results) {
            long init = r.medianInitMillis();
            long first = r.medianFirstPushMillis();
            long loaded = r.classesLoaded();
            long cpu = r.medianCpuMillis();
            if (reference < 0) {
                reference = first;
                referenceClasses = loaded;
                referenceCpu = cpu;
            }
            System.out.printf(name + " %9d ms %13d ms %8.2f %11d ms %8.2f %16d %8.2f%n", r.name(), init, first,
                    first / (double) reference, cpu, cpu / (double) referenceCpu, loaded, loaded / (double) referenceClasses);
        }
    }

    /** Width of the tables' first column: the longest variant name, at least that of "package". */
    static int nameWidth(List<Variant> variants) {
        return Math.max(10, variants.stream().mapToInt(v -> v.name().length()).max().orElse(0));
    }

    /**
     * Starts each package {@code runs} times, in turn round after round, then once more with
     * -Xlog:class+load, against a database that is already migrated; prints each start to {@code out}.
     * Run from the repository root (target/, infra/terraform/function.tf).
     *
     * @param reactiveUrl postgresql://host:port/db of the migrated database
     * @param user        its user (no password)
     * @return one result per variant, in order
     * @throws Exception when a package cannot be started or does not answer 200
     */
    public static List<Result> measure(int runs, List<Variant> variants, String reactiveUrl, String user, PrintStream out)
            throws Exception {
        Map<String, String> env = environment(reactiveUrl, user);
        Map<String, List<long[]>> times = new LinkedHashMap<>();
        variants.forEach(v -> times.put(v.name(), new ArrayList<>()));
        String name = "%-" + nameWidth(variants) + "s";
        out.printf("load average at start: %s%n", loadAverage());
        out.printf(name + " %5s %12s %16s %12s%n", "package", "run", "init ms", "first push ms", "CPU ms");
        for (int run = 1; run <= runs; run++) {
            for (Variant v : variants) {
                long[] t = once(v, env, run);
                times.get(v.name()).add(new long[] {t[0], t[1], t[3]});
                out.printf(name + " %5d %12d %16d %12d%n", v.name(), run, t[0], t[1], t[3]);
            }
        }
        out.printf("load average at end: %s%n", loadAverage());
        List<Result> results = new ArrayList<>();
        for (Variant v : variants) {
            results.add(new Result(v.name(), times.get(v.name()), classesLoaded(v, env)));
        }
        return results;
    }

    /**
     * The function's environment as infra/terraform writes it, for the bench's database.
     *
     * @param reactiveUrl postgresql://host:port/db of a migrated database
     * @param user        its user (no password)
     * @return the variables, besides those the Lambda service sets
     * @throws Exception when SHA-256 is missing
     */
    public static Map<String, String> environment(String reactiveUrl, String user) throws Exception {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("QUARKUS_PROFILE", "lambda");
        env.put("QUARKUS_DATASOURCE_REACTIVE_URL", reactiveUrl);
        env.put("QUARKUS_DATASOURCE_USERNAME", user);
        env.put("EXACTLY_AUTH_API_KEY_SHA256", HexFormat.of().formatHex(
                java.security.MessageDigest.getInstance("SHA-256").digest(Api.TEST_API_KEY.getBytes(StandardCharsets.UTF_8))));
        env.put("EXACTLY_WEBHOOKS_SOURCES_GITHUB_PRESET", "github");
        env.put("EXACTLY_WEBHOOKS_SOURCES_GITHUB_SECRET", "cold-start-bench");
        return env;
    }

    /** Starts v once with -Xlog:class+load and counts the classes loaded up to its first answer. */
    private static long classesLoaded(Variant v, Map<String, String> env) throws Exception {
        Path log = Path.of("target", "cold-start-classes-" + v.name() + ".log").toAbsolutePath();
        Files.deleteIfExists(log);
        String options = (v.toolOptions() != null ? v.toolOptions() : FunctionProcess.javaToolOptions())
                + " -Xlog:class+load=info:file=" + log;
        return once(new Variant(v.name(), v.zip(), options, v.javaHome()), env, 0, log)[2];
    }

    private static long[] once(Variant v, Map<String, String> env, int run) throws Exception {
        return once(v, env, run, null);
    }

    /** /proc/loadavg's three load averages (1, 5, 15 min), or "unknown" where there is none. */
    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }

    /** The CPU time (user + system) process pid has used so far, ms, from /proc/PID/stat; -1 where there is none. */
    static long cpuMillis(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // the fields after the command name, which is in parentheses and may hold spaces
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
            return ticks * 1000 / CLOCK_TICKS;
        } catch (java.io.IOException | RuntimeException e) {
            return -1;
        }
    }

    /** USER_HZ, the unit of /proc/PID/stat's times: 100 on Linux' common builds. */
    private static final long CLOCK_TICKS = 100;

    /**
     * One start: {init ms, first answer ms, classes in classLog when the answer came (0 without one),
     * the process' CPU ms at the answer}.
     */
    private static long[] once(Variant v, Map<String, String> env, int run, Path classLog) throws Exception {
        long[] times;
        try (RuntimeApiServer api = new RuntimeApiServer();
             FunctionProcess fn = FunctionProcess.start("bench-" + v.name() + "-" + run, api, env,
                     FunctionProcess.unzipped(v.zip(), Path.of("target", "lambda-task-" + v.name())), v.toolOptions(),
                     v.javaHome())) {
            String event = new String(ApiGatewayEvents.request("POST", "/api/v1/push")
                    .header("authorization", "Bearer " + Api.TEST_API_KEY)
                    .json("{\"items\":[{\"queue\":\"cold\",\"transactionId\":\"c-" + v.name() + "-" + run + "-" + System.nanoTime()
                            + "\",\"payload\":{\"n\":1}}]}").build(), StandardCharsets.UTF_8);
            RuntimeApiServer.Outcome outcome = api.invoke(event.getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(120));
            long done = System.nanoTime();
            long cpu = cpuMillis(fn.pid());
            long loaded = 0;
            if (classLog != null) {
                try (Stream<String> lines = Files.lines(classLog)) {
                    loaded = lines.count();
                }
            }
            JsonNode answer = JSON.readTree(outcome.response() == null ? "{}" : outcome.response());
            if (answer.path("statusCode").asInt() != 200) {
                throw new IllegalStateException(v.name() + ": " + outcome + "\n" + fn.output());
            }
            times = new long[] {TimeUnit.NANOSECONDS.toMillis(api.firstNextNanos() - fn.startNanos()),
                    TimeUnit.NANOSECONDS.toMillis(done - fn.startNanos()), loaded, cpu};
        }
        return times;
    }

    private static long median(List<long[]> values, int index) {
        long[] v = values.stream().mapToLong(a -> a[index]).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
