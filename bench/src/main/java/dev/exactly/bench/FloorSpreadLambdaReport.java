package dev.exactly.bench;

import static dev.exactly.bench.Report.fmt;

import dev.exactly.lambda.runtime.ColdStartBench;
import dev.exactly.lambda.runtime.FunctionProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The floor, spread and lambda part of BENCHMARKS.md: their targets table (each target's figures, the
 * ratio it is judged on, the command that measured it, met / not met) and the tables of the floor,
 * spread and lambda phases behind it.
 */
final class FloorSpreadLambdaReport {

    static final double WAL_PER_DUPLICATE_MAX = 1;
    static final double LOCK_MAX = 1.2;
    static final double CPU_MAX = 1.5;
    static final double SPREAD_MIN = 3;
    static final double FUSION_MIN = 1;
    static final double COLD_START_MAX_MS = 1500;

    private final Suite s;
    private final StringBuilder md = new StringBuilder();

    FloorSpreadLambdaReport(Suite suite) {
        this.s = suite;
    }

    /** The targets table; empty when none of the floor, spread and lambda phases ran. */
    String targets() {
        md.setLength(0);
        if (s.floor == null && s.spread == null && s.lambda == null) {
            return "";
        }
        line("### The single push, spread queues, fusion and the Lambda cold start");
        line();
        line("Each figure from this run, by the phase in the command column (cells interleaved round by round");
        line("within a phase; the tables below give every cell). \"Lock held\" per push is 1 ÷ throughput: with 16");
        line("clients on one partition throughput is bound by its row lock.");
        line();
        line("| target | measured | ratio | command | verdict |");
        line("| --- | --- | ---: | --- | --- |");
        floorTargets();
        spreadTargets();
        lambdaTarget();
        line();
        return md.toString();
    }

    /** The phases' own tables. */
    String sections() {
        md.setLength(0);
        floorSection();
        spreadSection();
        lambdaSection();
        return md.toString();
    }

    // ------------------------------------------------------------------ targets

    private void floorTargets() {
        String cmd = "`bench/run --only floor`";
        String t1 = "a duplicate takes no lock and writes nothing: 0 WAL bytes per duplicate push (met below 1 byte)";
        String t2 = "single push (stateless shape, 1 item/request, 1 partition): partition lock held ≤ 1.2 × the pgbench anchor";
        String t3 = "single push: database CPU per push ≤ 1.5 × the anchor's per transaction";
        if (s.floor == null) {
            for (String t : List.of(t1, t2, t3)) {
                row(t, "–", "–", cmd, "not run in this invocation");
            }
            return;
        }
        FloorPhase.Result f = s.floor;
        if (f.skipped != null) {
            for (String t : List.of(t1, t2, t3)) {
                row(t, "–", "–", cmd, "skipped: " + f.skipped);
            }
            return;
        }
        Optional<FloorPhase.Cell> dup = f.cell("duplicate");
        double wal = f.walPerDuplicate();
        row(t1, dup.map(c -> (Double.isNaN(c.countedWalBytes)
                        ? fmt(c.walBytes, 0) + " WAL bytes (server-wide) over "
                        : fmt(c.countedWalBytes, 0) + " WAL bytes counted (server-wide " + fmt(c.walBytes, 0)
                                + ", the rest excluded: see the floor section) over ")
                        + fmt(c.pushes, 0) + " duplicate pushes (" + fmt(c.rate(), 0) + "/s); commits per WAL fsync: "
                        + fsync(c, true)).orElse("–"),
                fmt(wal, 2) + " B/push", cmd, problemOr(Double.isNaN(wal) ? "not measured"
                        : wal < WAL_PER_DUPLICATE_MAX ? "**met**" : "**not met**", dup));
        Optional<FloorPhase.Cell> anchor = f.cell("anchor");
        Optional<FloorPhase.Cell> fresh = f.cell("fresh");
        Optional<FloorPhase.Cell> svc = f.cell("service");
        double lock = f.lockVsAnchor("service");
        row(t2, "anchor " + rate(anchor) + " tx/s ÷ service " + rate(svc) + " pushes/s; fresh.sql " + rate(fresh)
                        + " tx/s (" + fmt(f.lockVsAnchor("fresh"), 2) + "× the anchor)",
                fmt(lock, 2) + "×", cmd, problemOr(atMost(lock, LOCK_MAX), anchor, svc));
        double cpu = f.cpuVsAnchor("service");
        row(t3, f.cpuProblem != null ? "no CPU figure: " + f.cpuProblem
                        : "service " + micros(svc) + " ÷ anchor " + micros(anchor) + " of database CPU per push; fresh.sql "
                        + micros(fresh) + " (" + fmt(f.cpuVsAnchor("fresh"), 2) + "× the anchor)",
                fmt(cpu, 2) + "×", cmd, problemOr(atMost(cpu, CPU_MAX), anchor, svc));
    }

    private void spreadTargets() {
        String cmd = "`bench/run --only spread`";
        String t3 = "spread queue, stateless, 16 producers: spreadPartitions 16 (spreadPartitions 16) ≥ 3 × one partition";
        String t4 = "fusion out of the way: server mode ≥ 1 × stateless, 16 partitions, one producer each";
        if (s.spread == null) {
            row(t3, "–", "–", cmd, "not run in this invocation");
            row(t4, "–", "–", cmd, "not run in this invocation");
            return;
        }
        SpreadPhase.Result r = s.spread;
        String ceiling = Double.isNaN(r.spreadCeiling()) ? ""
                : "; at the spread cell's " + fmt(r.cell("spread-off").map(c -> c.usage().machineMicrosPerPush()).orElse(Double.NaN), 0)
                + " µs of machine CPU per push, this machine's " + Runtime.getRuntime().availableProcessors()
                + " cores allow at most " + fmt(r.spreadCeiling(), 2) + "× one partition";
        row(t3, msgs(r, "spread-off") + " ÷ " + msgs(r, "one-off") + " msgs/s" + ceiling, fmt(r.spreadRatio(), 2) + "×", cmd,
                atLeast(r.spreadRatio(), SPREAD_MIN));
        row(t4, msgs(r, "pinned-fused") + " ÷ " + msgs(r, "pinned-off") + " msgs/s", fmt(r.fusionRatio(), 2) + "×", cmd,
                atLeast(r.fusionRatio(), FUSION_MIN));
    }

    private void lambdaTarget() {
        String cmd = "`bench/run --only lambda`";
        String t = "cold start of the Lambda package under the runtime interface client: start to first answered push ≤ 1,500 ms (median)";
        if (s.lambda == null) {
            row(t, "–", "–", cmd, "not run in this invocation");
            return;
        }
        LambdaColdStartPhase.Result l = s.lambda;
        if (l.skipped != null || l.failed != null) {
            row(t, "–", "–", cmd, (l.skipped != null ? "skipped: " + l.skipped : "failed: " + l.failed));
            return;
        }
        double ms = l.medianMillis();
        row(t, "median of " + l.measured.runs().size() + " starts: " + fmt(ms, 0) + " ms; "
                        + fmt(l.measured.classesLoaded(), 0) + " classes loaded before the first answer",
                fmt(ms / COLD_START_MAX_MS, 2) + "× the 1,500 ms", cmd, atMost(ms, COLD_START_MAX_MS));
    }

    // ------------------------------------------------------------------ sections

    private void floorSection() {
        if (s.floor == null || s.floor.skipped != null) {
            return;
        }
        FloorPhase.Result f = s.floor;
        line("## Single push against the pgbench floor");
        line();
        line("`bench/run --only floor`: pgbench (`" + f.pgbench + "`, " + FloorPhase.CLIENTS + " clients, `-j 2`, `-T` = warm-up +");
        line("measured period rounded up to whole seconds) with the scripts of `bench/floor/` on a database of its own migrated by");
        line("`bench/floor/migrate`, and the service in the stateless shape (`" + f.settings + "`) with " + FloorPhase.CLIENTS);
        line("producers of one-item requests into one partition, on the same PostgreSQL; cells interleaved round by round.");
        line("Pushes are counted by their partition's `last_offset` and the database's CPU is the utime + stime of the");
        line("postmaster and all its processes from /proc, plus the postmaster's reaped children (pgbench's backends once it");
        line("exits); both are read after the warm-up (pgbench: that long after it started, its connections made and its");
        line("statements planned; the service: before the run, its pool warm) and 1 s after the run ended. Duplicates:");
        line("the whole pgbench run, as `bench/floor/run` measures it. WAL bytes from `pg_current_wal_lsn()` and fsyncs");
        line("from `pg_stat_wal.wal_sync` are server-wide. Both databases are vacuumed before each cell, and then their");
        line("`pg_statistic`, whose old rows the ANALYZE left dead (an autovacuum of them, or their pruning by a planning");
        line("backend, would write WAL in the next cell).");
        if (f.cpuProblem != null) {
            line("No CPU figures: " + f.cpuProblem + ".");
        }
        if (f.walSyncProblem != null) {
            line("No commits per fsync: " + f.walSyncProblem + ".");
        }
        line();
        line("| cell | pushes/s | rounds (pushes/s) | lock held, × the anchor | database CPU µs/push | × the anchor | WAL B/push | commits per WAL fsync | problems |");
        line("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | --- |");
        for (FloorPhase.Cell c : f.cells.values()) {
            boolean dup = c.id.equals("duplicate");
            List<String> rounds = new ArrayList<>();
            c.roundRates.forEach(v -> rounds.add(fmt(v, 0)));
            line("| " + c.title + " | " + fmt(c.rate(), 0) + " | " + String.join(", ", rounds) + " | "
                    + (dup ? "" : fmt(f.lockVsAnchor(c.id), 2) + "×") + " | " + fmt(c.cpuMicrosPerPush(), 0) + " | "
                    + (dup ? "" : fmt(f.cpuVsAnchor(c.id), 2) + "×") + " | " + fmt(c.walPerPush(), 1) + " | "
                    + fsync(c, dup) + " | " + (c.problem == null ? "" : cell(c.problem)) + " |");
        }
        if (f.cpuProblem == null) {
            line();
            line("Database CPU per transaction with pgbench's start-up included (read before pgbench started: its 16");
            line("connections, their backends' start and first plans): anchor "
                    + microsOf(f.cell("anchor").map(FloorPhase.Cell::wholeCpuMicrosPerPush)) + ", fresh.sql "
                    + microsOf(f.cell("fresh").map(FloorPhase.Cell::wholeCpuMicrosPerPush)) + ".");
        }
        f.cell("duplicate").ifPresent(c -> {
            line();
            if (Double.isNaN(c.countedWalBytes)) {
                line("The duplicate cell's WAL is the server's, all of it: " + fmt(c.walPerPush(), 2) + " B/push"
                        + (f.walBreakdownProblem == null ? "." : " (" + f.walBreakdownProblem + ")."));
            } else {
                line("The duplicate cell's WAL read back with pg_walinspect: " + fmt(c.countedWalBytes, 0) + " bytes counted ("
                        + fmt(c.countedWalPerPush(), 2) + " B/push: records on `" + FloorPhase.DATABASE + "`'s own relations,");
                line("commits and aborts from any database, logical messages) of " + fmt(c.walBytes, 0)
                        + " server-wide. Excluded (system catalogs, other databases, checkpoints and standby records): "
                        + c.excludedWal() + ".");
            }
        });
        f.cell("service").filter(c -> !c.http.isEmpty()).ifPresent(c -> {
            LoadResult m = LoadResult.merge(c.http);
            line();
            line(String.format(Locale.ROOT, "Service latency (one request): p50 %s ms, p99 %s ms, p99.9 %s ms; %d errors.",
                    fmt(m.p50Ms(), 2), fmt(m.p99Ms(), 2), fmt(m.p999Ms(), 2), m.errors()));
        });
        line();
    }

    private void spreadSection() {
        if (s.spread == null) {
            return;
        }
        line("## Spread and fusion over HTTP");
        line();
        line("`bench/run --only spread` (or `bench/spread/run`): two services on the suite's PostgreSQL, the stateless shape");
        line("(cache and fusion off, as the Lambda runs) and server mode (cache + fusion), " + SpreadPhase.CLIENTS
                + " producers of one-item requests,");
        line("cells interleaved round by round (" + s.rounds + " rounds of " + fmt(s.spreadMeasure.toMillis() / 1000.0, 1)
                + " s each, `--spread-measure`, after each service's warm-up and once the machine is quiet).");
        line("A spread queue's items name no partition; the pinned cells send producer c to partition p{c mod 16}.");
        line();
        line("Database CPU per push: the PostgreSQL process tree's CPU over the cell's rounds (warm-up included) ÷ the pushes");
        line("stored; machine CPU per push: every process's (/proc/stat busy time, all cores), the load generator's and the");
        line("two services' included.");
        line();
        line("| cell | msgs/s | rounds (msgs/s) | p50 ms | p99 ms | database CPU µs/push | machine CPU µs/push | errors |");
        line("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |");
        for (SpreadPhase.Cell c : s.spread.cells.values()) {
            if (c.runs().isEmpty()) {
                continue;
            }
            LoadResult m = c.merged();
            List<String> rounds = new ArrayList<>();
            c.runs().forEach(r -> rounds.add(fmt(r.msgsPerSecond(), 0)));
            line("| " + c.title() + " | " + fmt(m.msgsPerSecond(), 0) + " | " + String.join(", ", rounds) + " | "
                    + fmt(m.p50Ms(), 2) + " | " + fmt(m.p99Ms(), 2) + " | " + fmt(c.usage().databaseMicrosPerPush(), 0) + " | "
                    + fmt(c.usage().machineMicrosPerPush(), 0) + " | "
                    + (m.errors() == 0 ? "0" : m.errors() + " (" + cell(m.firstError()) + ")") + " |");
        }
        line();
    }

    private void lambdaSection() {
        LambdaColdStartPhase.Result l = s.lambda;
        if (l == null || l.measured == null) {
            return;
        }
        line("## Cold start of the Lambda package under the runtime interface client");
        line();
        line("`bench/run --only lambda`: `" + l.zip + "` (built by `mvn -Plambda` before the server build) unzipped and");
        line("started by `ColdStartBench` as `LambdaRuntimeIT` starts it: the AWS Lambda Java runtime interface client in a");
        line("JVM of its own with the managed runtime's flags and `infra/terraform/function.tf`'s JAVA_TOOL_OPTIONS, fed by a");
        line("Runtime API on 127.0.0.1, against the suite's PostgreSQL (vacuumed and checkpointed first, then the machine left to settle below 15% busy); no SnapStart. Init = process start to its first");
        line("`/invocation/next`; then to the answer of its first one-item push. Classes: one more, untimed start with");
        line("`-Xlog:class+load`, counted up to that answer (list in `target/cold-start-classes-lambda.log`).");
        Path home = FunctionProcess.defaultJavaHome();
        line("The function ran on " + jdk(home) + " (`" + home + "`; `EXACTLY_LAMBDA_JAVA_HOME` names another JDK), while");
        line("the deployed function runs on `infra/terraform`'s `lambda_runtime` (bench/findings.md compares Java 17 and 25).");
        line();
        line("| start | init | start → first answered push |");
        line("| ---: | ---: | ---: |");
        ColdStartBench.Result m = l.measured;
        for (int i = 0; i < m.runs().size(); i++) {
            line("| " + (i + 1) + " | " + fmt(m.runs().get(i)[0], 0) + " ms | " + fmt(m.runs().get(i)[1], 0) + " ms |");
        }
        line("| median | " + fmt(m.medianInitMillis(), 0) + " ms | " + fmt(m.medianFirstPushMillis(), 0) + " ms |");
        line();
        line("Classes loaded before the first answer: " + fmt(m.classesLoaded(), 0) + ".");
        line();
    }

    // ------------------------------------------------------------------ helpers

    /** "Java VERSION" from a JDK's release file (JAVA_VERSION="…"), or "an unknown Java" without one. */
    static String jdk(Path home) {
        try {
            for (String l : Files.readAllLines(home.resolve("release"))) {
                if (l.startsWith("JAVA_VERSION=")) {
                    return "Java " + l.substring("JAVA_VERSION=".length()).replace("\"", "");
                }
            }
        } catch (IOException e) {
            // no release file: say so below
        }
        return "an unknown Java";
    }

    private static String fsync(FloorPhase.Cell c, boolean duplicate) {
        double v = c.commitsPerFsync(duplicate);
        return Double.isInfinite(v) ? "no fsync" : fmt(v, 1);
    }

    private static String rate(Optional<FloorPhase.Cell> c) {
        return fmt(c.map(FloorPhase.Cell::rate).orElse(Double.NaN), 0);
    }

    private static String micros(Optional<FloorPhase.Cell> c) {
        return microsOf(c.map(FloorPhase.Cell::cpuMicrosPerPush));
    }

    private static String microsOf(Optional<Double> perPush) {
        return fmt(perPush.orElse(Double.NaN), 0) + " µs";
    }

    private static String msgs(SpreadPhase.Result r, String id) {
        return fmt(r.cell(id).map(c -> c.merged().msgsPerSecond()).orElse(Double.NaN), 0);
    }

    /** The verdict, or "not measured: problem" when a cell the figure rests on failed. */
    @SafeVarargs
    private static String problemOr(String verdict, Optional<FloorPhase.Cell>... cells) {
        for (Optional<FloorPhase.Cell> c : cells) {
            if (c.isPresent() && c.get().problem != null) {
                return "not measured: " + c.get().id + ": " + cell(c.get().problem);
            }
        }
        return verdict;
    }

    private static String atMost(double v, double max) {
        return Double.isNaN(v) ? "not measured" : v <= max ? "**met**" : "**not met**";
    }

    private static String atLeast(double v, double min) {
        return Double.isNaN(v) ? "not measured" : v >= min ? "**met**" : "**not met**";
    }

    /** Text safe inside a table cell. */
    private static String cell(String text) {
        String t = String.valueOf(text).replace('|', '/').replace('\n', ' ');
        return t.length() > 300 ? t.substring(0, 300) + "…" : t;
    }

    private void row(String target, String measured, String ratio, String command, String verdict) {
        line("| " + target + " | " + measured + " | " + ratio + " | " + command + " | " + verdict + " |");
    }

    private void line(String text) {
        md.append(text).append('\n');
    }

    private void line() {
        md.append('\n');
    }
}
