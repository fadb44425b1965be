package dev.exactly.lambda.runtime;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.exactly.testing.Api;
import dev.exactly.testing.TestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The first pushes after a start against the steady state, for the Lambda package (target/function.zip)
 * under the AWS Lambda runtime interface client, as {@link ColdStartBench} starts it: one-item pushes
 * of new ids, one after the other (a Lambda instance serves one request at a time), timed from the
 * first invocation; the first N against N pushes after M more (the steady state). Two starts per
 * round, in turn: on demand (no SnapStart: nothing primed) and with
 * {@code AWS_LAMBDA_INITIALIZATION_TYPE=snap-start}, where the runtime client runs the
 * before-checkpoint hooks (the push path primed, HotPathPriming) and then /restore/next. No
 * snapshot is taken or restored here (that needs AWS's runtime): the process after its hooks is
 * what a snapshot would hold, without the restore's own costs. Ratio = the first N's pushes/s ÷ the
 * steady N's. The database is the tests' embedded PostgreSQL.
 *
 * <p>Arguments: {@code [--runs R (2)] [--pushes N (1000)] [--steady-after M (3000)]
 * [--starts on-demand,snap-start] [ZIP (target/function.zip)]}; a start is {@code on-demand} or
 * {@code snap-start}, optionally followed by {@code :rounds=K} (the rounds primed before the
 * checkpoint, {@code exactly.priming.rounds}), e.g. {@code --starts snap-start:rounds=1000,snap-start}.
 * Run from the repository root, as bench/lambda-cold-start runs ColdStartBench.
 */
public final class FirstPushesBench {

    private static final ObjectMapper JSON = new ObjectMapper();

    private FirstPushesBench() {
    }

    /**
     * @param args see the class comment
     * @throws Exception when the package cannot be started or a push is not answered 200
     */
    public static void main(String[] args) throws Exception {
        int runs = 2;
        int pushes = 1000;
        int steadyAfter = 3000;
        Path zip = Path.of("target", "function.zip");
        List<String> starts = List.of("on-demand", "snap-start");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--starts" -> starts = List.of(args[++i].split(","));
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--pushes" -> pushes = Integer.parseInt(args[++i]);
                case "--steady-after" -> steadyAfter = Integer.parseInt(args[++i]);
                default -> zip = Path.of(args[i]);
            }
        }
        String db = TestDatabase.createMigratedDatabase();
        Map<String, String> env = ColdStartBench.environment(TestDatabase.reactiveUrl(db), "postgres");
        Path task = FunctionProcess.unzipped(zip, Path.of("target", "lambda-task-first-pushes"));
        System.out.printf("load average at start: %s%n", ColdStartBench.loadAverage());
        System.out.printf("%-22s %4s %18s %18s %8s%n", "start", "run", "first N pushes/s", "steady pushes/s", "ratio");
        Map<String, List<Double>> ratios = new java.util.LinkedHashMap<>();
        for (int run = 1; run <= runs; run++) {
            for (String start : starts) {
                Map<String, String> e = new HashMap<>(env);
                boolean snapStart = start.startsWith("snap-start");
                if (snapStart) {
                    e.put("AWS_LAMBDA_INITIALIZATION_TYPE", "snap-start");
                }
                int colon = start.indexOf(":rounds=");
                if (colon >= 0) {
                    e.put("EXACTLY_PRIMING_ROUNDS", start.substring(colon + ":rounds=".length()));
                }
                double[] rates = measure(start.replace(':', '-').replace('=', '-') + "-" + run, e, task, pushes, steadyAfter, snapStart);
                double ratio = rates[0] / rates[1];
                ratios.computeIfAbsent(start, k -> new ArrayList<>()).add(ratio);
                System.out.printf("%-22s %4d %18.0f %18.0f %8.2f%n", start, run, rates[0], rates[1], ratio);
            }
        }
        System.out.printf("load average at end: %s%n", ColdStartBench.loadAverage());
        int n = pushes;
        ratios.forEach((start, r) -> System.out.printf("%s: median ratio of the first %d pushes to the steady state %.2f%n",
                start, n, median(r)));
    }

    /** One start: {the first N's pushes/s, the steady N's}. */
    private static double[] measure(String name, Map<String, String> env, Path task, int pushes, int steadyAfter,
                                    boolean snapStart) throws Exception {
        try (RuntimeApiServer api = new RuntimeApiServer();
             FunctionProcess fn = FunctionProcess.start("first-pushes-" + name, api, env, task, null)) {
            if (snapStart) {
                api.restored().get(120, TimeUnit.SECONDS);
            }
            long first = timed(api, name + "-a", pushes);
            timed(api, name + "-b", steadyAfter);
            long steady = timed(api, name + "-c", pushes);
            return new double[] {pushes * 1e9 / first, pushes * 1e9 / steady};
        }
    }

    /** n one-item pushes of new ids, one after the other; their nanoseconds. */
    private static long timed(RuntimeApiServer api, String prefix, int n) throws Exception {
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            byte[] event = ApiGatewayEvents.request("POST", "/api/v1/push")
                    .header("authorization", "Bearer " + Api.TEST_API_KEY)
                    .json("{\"items\":[{\"queue\":\"first-pushes\",\"transactionId\":\"" + prefix + "-" + i + "-" + System.nanoTime()
                            + "\",\"payload\":{\"n\":" + i + "}}]}").build();
            RuntimeApiServer.Outcome outcome = api.invoke(event, Duration.ofSeconds(60));
            if (JSON.readTree(outcome.response() == null ? "{}" : outcome.response()).path("statusCode").asInt() != 200) {
                throw new IllegalStateException(prefix + " push " + i + ": " + outcome);
            }
        }
        return System.nanoTime() - start;
    }

    private static double median(List<Double> values) {
        List<Double> v = values.stream().sorted().toList();
        return v.size() % 2 == 1 ? v.get(v.size() / 2) : (v.get(v.size() / 2 - 1) + v.get(v.size() / 2)) / 2;
    }
}
