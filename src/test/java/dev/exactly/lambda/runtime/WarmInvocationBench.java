package dev.exactly.lambda.runtime;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.exactly.testing.Api;
import dev.exactly.testing.TestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Warm invocations of function.zip packages under the AWS Lambda Java runtime interface client, side
 * by side in one run (bench/lambda-warm/run drives it): one function instance per package, started as
 * {@link ColdStartBench} starts it (its own {@link RuntimeApiServer}, infra/terraform/function.tf's
 * JAVA_TOOL_OPTIONS), warmed up, then per round and per package N one-item pushes of new ids and N
 * cheap GETs ({@code /q/health/live}, no database), one after the other, as Lambda sends one event
 * at a time to an instance. The packages take turns within a round, the order reversed every other
 * round. Per batch: latency p50 and p99 (from handing the event to the Runtime API to its answer
 * there, both loopback), invocations/s, and the function process' CPU time per invocation (user +
 * system of all its threads, /proc/PID/stat, read before and after the batch). Prints each batch,
 * then the medians over the rounds and each package's ratio to the first.
 *
 * <p>Arguments: {@code [--rounds R (6)] [--invocations N (2000)] [--warmup N (5000)] NAME=ZIP ...}
 * (the first package is the reference of the ratios). Run from the repository root. The database
 * is the tests' embedded PostgreSQL, migrated once.
 */
public final class WarmInvocationBench {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final List<String> KINDS = List.of("push", "get");

    private WarmInvocationBench() {
    }

    /**
     * One batch's figures.
     *
     * @param p50Millis       median latency, ms
     * @param p99Millis       99th percentile latency, ms
     * @param perSecond       invocations per second over the batch
     * @param cpuMicrosPerInv the function process' CPU time per invocation, µs
     */
    record Batch(double p50Millis, double p99Millis, double perSecond, double cpuMicrosPerInv) {
    }

    /** A running package: its Runtime API and process. */
    private record Instance(String name, RuntimeApiServer api, FunctionProcess fn) {
    }

    /**
     * @param args see the class comment
     * @throws Exception when a package cannot be started or an invocation is not answered 200
     */
    public static void main(String[] args) throws Exception {
        int rounds = 6;
        int n = 2000;
        int warmup = 5000;
        Map<String, Path> packages = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--invocations" -> n = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                default -> {
                    String[] nameZip = args[i].split("=", 2);
                    if (nameZip.length != 2) {
                        throw new IllegalArgumentException("usage: WarmInvocationBench [--rounds R] [--invocations N] [--warmup N] NAME=ZIP ...");
                    }
                    packages.put(nameZip[0], Path.of(nameZip[1]));
                }
            }
        }
        if (packages.isEmpty()) {
            throw new IllegalArgumentException("usage: WarmInvocationBench [--rounds R] [--invocations N] [--warmup N] NAME=ZIP ...");
        }
        String db = TestDatabase.createMigratedDatabase();
        Map<String, String> env = ColdStartBench.environment(TestDatabase.reactiveUrl(db), "postgres");
        List<Instance> instances = new ArrayList<>();
        try {
            for (Map.Entry<String, Path> p : packages.entrySet()) {
                RuntimeApiServer api = new RuntimeApiServer();
                Path task = FunctionProcess.unzipped(p.getValue(), Path.of("target", "lambda-task-warm-" + p.getKey()));
                instances.add(new Instance(p.getKey(), api, FunctionProcess.start("warm-" + p.getKey(), api, env, task, null)));
            }
            run(instances, rounds, n, warmup);
        } finally {
            for (Instance i : instances) {
                i.fn().close();
                i.api().close();
            }
        }
    }

    private static void run(List<Instance> instances, int rounds, int n, int warmup) throws Exception {
        System.out.printf("load average at start: %s%n", ColdStartBench.loadAverage());
        System.out.printf("warm-up: %d pushes and %d GETs per package (not reported); then %d rounds of %d of each%n",
                warmup, warmup, rounds, n);
        for (Instance i : instances) {
            for (String kind : KINDS) {
                batch(i, kind, "warmup", warmup);
            }
        }
        System.out.printf("load average after the warm-up: %s%n", ColdStartBench.loadAverage());
        int width = Math.max(10, instances.stream().mapToInt(i -> i.name().length()).max().orElse(0));
        String name = "%-" + width + "s";
        System.out.printf(name + " %5s %5s %9s %9s %10s %14s%n", "package", "round", "kind", "p50 ms", "p99 ms", "inv/s", "CPU µs/inv");
        Map<String, List<Batch>> results = new LinkedHashMap<>();
        for (int r = 1; r <= rounds; r++) {
            List<Instance> order = new ArrayList<>(instances);
            if (r % 2 == 0) {
                java.util.Collections.reverse(order);
            }
            for (Instance i : order) {
                for (String kind : KINDS) {
                    Batch b = batch(i, kind, "r" + r, n);
                    results.computeIfAbsent(i.name() + " " + kind, k -> new ArrayList<>()).add(b);
                    System.out.printf(name + " %5d %5s %9.3f %9.3f %10.0f %14.0f%n", i.name(), r, kind,
                            b.p50Millis(), b.p99Millis(), b.perSecond(), b.cpuMicrosPerInv());
                }
            }
        }
        System.out.printf("load average at end: %s%n", ColdStartBench.loadAverage());
        System.out.printf("%nmedians of %d rounds (ratio: to %s)%n", rounds, instances.get(0).name());
        System.out.printf(name + " %5s %9s %6s %9s %6s %10s %6s %14s %6s%n", "package", "kind", "p50 ms", "ratio", "p99 ms", "ratio",
                "inv/s", "ratio", "CPU µs/inv", "ratio");
        for (String kind : KINDS) {
            double[] ref = null;
            for (Instance i : instances) {
                List<Batch> bs = results.get(i.name() + " " + kind);
                double[] m = {median(bs, Batch::p50Millis), median(bs, Batch::p99Millis), median(bs, Batch::perSecond),
                        median(bs, Batch::cpuMicrosPerInv)};
                if (ref == null) {
                    ref = m;
                }
                System.out.printf(name + " %5s %9.3f %6.2f %9.3f %6.2f %10.0f %6.2f %14.0f %6.2f%n", i.name(), kind,
                        m[0], m[0] / ref[0], m[1], m[1] / ref[1], m[2], m[2] / ref[2], m[3], m[3] / ref[3]);
            }
        }
    }

    /** n invocations of one kind, one after the other, each checked to answer 200. */
    private static Batch batch(Instance instance, String kind, String prefix, int n) throws Exception {
        long[] nanos = new long[n];
        long cpu0 = ColdStartBench.cpuMillis(instance.fn().pid());
        long start = System.nanoTime();
        for (int k = 0; k < n; k++) {
            byte[] event = kind.equals("push")
                    ? ApiGatewayEvents.request("POST", "/api/v1/push")
                            .header("authorization", "Bearer " + Api.TEST_API_KEY)
                            .json("{\"items\":[{\"queue\":\"warm\",\"transactionId\":\"" + instance.name() + "-" + prefix + "-" + k + "-"
                                    + System.nanoTime() + "\",\"payload\":{\"n\":" + k + "}}]}").build()
                    : ApiGatewayEvents.request("GET", "/q/health/live").build();
            long t0 = System.nanoTime();
            RuntimeApiServer.Outcome outcome = instance.api().invoke(event, TIMEOUT);
            nanos[k] = System.nanoTime() - t0;
            if (JSON.readTree(outcome.response() == null ? "{}" : outcome.response()).path("statusCode").asInt() != 200) {
                throw new IllegalStateException(instance.name() + " " + kind + " " + k + ": " + outcome + "\n" + instance.fn().output());
            }
        }
        long elapsed = System.nanoTime() - start;
        long cpu = ColdStartBench.cpuMillis(instance.fn().pid()) - cpu0;
        Arrays.sort(nanos);
        return new Batch(nanos[n / 2] / 1e6, nanos[Math.min(n - 1, (int) Math.ceil(n * 0.99) - 1)] / 1e6, n * 1e9 / elapsed,
                cpu * 1000.0 / n);
    }

    private static double median(List<Batch> batches, java.util.function.ToDoubleFunction<Batch> f) {
        double[] v = batches.stream().mapToDouble(f).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
