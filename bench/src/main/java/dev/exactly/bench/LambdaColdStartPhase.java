package dev.exactly.bench;

import dev.exactly.lambda.runtime.ColdStartBench;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The suite's lambda phase ({@code bench/run --only lambda}): the Lambda package
 * (target/bench/function.zip, which bench/run builds with the lambda Maven profile before the server
 * build) started {@code --lambda-runs} times (5) under the AWS Lambda Java runtime interface client
 * by {@link ColdStartBench} (the driver bench/lambda-cold-start runs too), against the suite's
 * PostgreSQL (migrated; vacuumed, checkpointed and the machine settled first); process start to the first answered one-item push, median over the starts
 * (target ≤ 1,500 ms), and the classes loaded before that answer.
 */
final class LambdaColdStartPhase {

    /** What the phase measured, or why it did not. */
    static final class Result {
        String skipped;
        String failed;
        Path zip;
        ColdStartBench.Result measured;

        /** Median start to first answered push, ms, or NaN. */
        double medianMillis() {
            return measured == null || measured.runs().isEmpty() ? Double.NaN : measured.medianFirstPushMillis();
        }
    }

    private final Suite s;

    LambdaColdStartPhase(Suite suite) {
        this.s = suite;
    }

    Result run() {
        Result result = new Result();
        result.zip = Path.of(s.args.getOrDefault("lambda-zip", "target/bench/function.zip"));
        int runs = Integer.parseInt(s.args.getOrDefault("lambda-runs", "5"));
        if (!Files.isRegularFile(result.zip)) {
            result.skipped = result.zip + " is missing (bench/run builds it with mvn -Plambda before the server build)";
        } else if (!Files.isDirectory(Path.of("target", "lambda-ric"))) {
            result.skipped = "target/lambda-ric (the runtime interface client) is missing; the lambda Maven profile "
                    + "copies it at pre-integration-test (mvn -Plambda verify -DskipTests -DskipITs)";
        }
        if (result.skipped != null) {
            Suite.log("lambda: skipped, " + result.skipped);
            return result;
        }
        Suite.log("lambda cold start, " + runs + " starts of " + result.zip);
        try {
            settle();
            result.measured = ColdStartBench.measure(runs, List.of(new ColdStartBench.Variant("lambda", result.zip, null)),
                    s.db.reactiveUrl(BenchDatabase.NAME), s.db.user(), System.out).get(0);
        } catch (Exception e) {
            result.failed = String.valueOf(e.getMessage()).lines().findFirst().orElse(e.toString());
            Suite.log("lambda: failed, " + e);
        }
        return result;
    }

    /**
     * A cold start is a latency of one process, so it is measured on a settled machine: the
     * earlier phases leave the database dead rows to vacuum and dirty pages to write, whose
     * background work would share the cores with the starting JVM. Vacuums and checkpoints the
     * suite's database, then waits (at most 60 s) until the machine's busy CPU over two seconds is
     * below 15% of its cores.
     */
    private void settle() throws Exception {
        try (java.sql.Connection c = s.db.connect(BenchDatabase.NAME); java.sql.Statement st = c.createStatement()) {
            st.execute("VACUUM");
            st.execute("CHECKPOINT");
        }
        double busy = MachineCpu.awaitQuiet(0.15, java.time.Duration.ofSeconds(60));
        if (Double.isNaN(busy)) {
            return;
        }
        Suite.log(String.format(java.util.Locale.ROOT, "  machine settled: %.0f%% of %d cores busy over 2 s", busy * 100,
                Runtime.getRuntime().availableProcessors()));
    }
}
