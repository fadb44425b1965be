package dev.exactly.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs the JMH benchmarks of bench/src/jmh (package dev.exactly.bench.jmh) with short, fixed
 * settings: one fork, 2 × 1 s warm-up, 3 × 1 s measurement. Needs the JMH annotation processor to
 * have run (Maven profile "bench").
 */
final class Micro {

    private Micro() {
    }

    /** @return rows of {benchmark, parameters, score ± error, unit} */
    static List<String[]> run(Path json, List<String> problems) {
        List<String[]> rows = new ArrayList<>();
        Options o = new OptionsBuilder().include("dev\\.exactly\\.bench\\.jmh\\..*")
                .forks(1).warmupIterations(2).warmupTime(TimeValue.seconds(1))
                .measurementIterations(3).measurementTime(TimeValue.seconds(1))
                .resultFormat(ResultFormatType.JSON).result(json.toString())
                .build();
        try {
            Collection<RunResult> results = new Runner(o).run();
            for (RunResult r : results) {
                var p = r.getParams();
                StringBuilder params = new StringBuilder();
                for (String k : p.getParamsKeys()) {
                    params.append(params.length() == 0 ? "" : ", ").append(k).append('=').append(p.getParam(k));
                }
                var s = r.getPrimaryResult();
                rows.add(new String[] {p.getBenchmark().replace("dev.exactly.bench.jmh.", ""), params.toString(),
                        String.format(Locale.ROOT, "%.3f ± %.3f", s.getScore(), s.getScoreError()), s.getScoreUnit()});
            }
        } catch (Exception | Error e) {
            problems.add("JMH did not run (" + e.getMessage() + "); build with the Maven profile bench (bench/run does)");
        }
        return rows;
    }
}
