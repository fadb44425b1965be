package dev.exactly.bench;

import static dev.exactly.bench.Report.fmt;

import java.util.List;

/**
 * The destinations part of BENCHMARKS.md: its targets table (each target's figures, the ratio it is
 * judged on, the command, met / not met) and the table of the destinations phase's rounds.
 */
final class DestinationsReport {

    static final double DELIVERY_MIN = 1.0;
    static final double PUSH_MIN = 0.9;
    static final double P50_MAX_MS = 20;
    static final double P99_MAX_MS = 100;

    private final Suite s;
    private final StringBuilder md = new StringBuilder();

    DestinationsReport(Suite suite) {
        this.s = suite;
    }

    /** The targets table; empty when the destinations phase did not run. */
    String targets() {
        md.setLength(0);
        DestinationsPhase.Result r = s.destinations;
        if (r == null) {
            return "";
        }
        line("### Destinations (server shape, HTTP destination on loopback)");
        line();
        line("Each figure is the median over the rounds of `bench/run --only destinations`; the table under");
        line("[Destinations](#destinations-push-to-delivery) gives every round.");
        line();
        line("| target | measured | ratio | command | verdict |");
        line("| --- | --- | ---: | --- | --- |");
        String cmd = "`bench/run --only destinations`";
        String t1 = "delivery keeps up: delivered/s ≥ 1.0 × pushed/s (16 producers of single messages over 16 partitions)";
        String t2 = "a destination costs pushes at most 10%: pushes/s with it ≥ 0.9 × without";
        String t3 = "push-to-delivery latency at half the maximum push rate: p50 ≤ 20 ms";
        String t4 = "push-to-delivery latency at half the maximum push rate: p99 ≤ 100 ms";
        if (r.failed != null || r.rounds.isEmpty()) {
            String why = r.failed != null ? "failed: " + r.failed : "no round measured";
            for (String t : List.of(t1, t2, t3, t4)) {
                row(t, "–", "–", cmd, why);
            }
            line();
            return md.toString();
        }
        double delivery = r.median(DestinationsPhase.Round::deliveryRatio);
        double push = r.median(DestinationsPhase.Round::pushRatio);
        double p50 = r.median(DestinationsPhase.Round::p50Ms);
        double p99 = r.median(DestinationsPhase.Round::p99Ms);
        row(t1, fmt(r.median(DestinationsPhase.Round::deliveredWith), 0) + " delivered/s ÷ "
                + fmt(r.median(DestinationsPhase.Round::pushedWith), 0) + " pushed/s in the same periods",
                fmt(delivery, 2) + "×", cmd, atLeast(delivery, DELIVERY_MIN));
        double bound = r.median(DestinationsPhase.Round::cpuBound);
        row(t2, fmt(r.median(DestinationsPhase.Round::pushedWith), 0) + " ÷ "
                + fmt(r.median(DestinationsPhase.Round::pushedWithout), 0) + " pushes/s; bound by the machine's CPU: "
                + fmt(r.median(DestinationsPhase.Round::cpuUsWithout), 0) + " µs a push without ÷ "
                + fmt(r.median(DestinationsPhase.Round::cpuUsWith), 0) + " µs with its delivery = " + fmt(bound, 2)
                + "× (cores busy " + fmt(100 * r.median(DestinationsPhase.Round::busyWithout), 0) + "% and "
                + fmt(100 * r.median(DestinationsPhase.Round::busyWith), 0) + "%); of a push's CPU with its delivery, "
                + split(r, DestinationsPhase.Round::splitWith) + ", so without the harness the bound is "
                + fmt(r.median(DestinationsPhase.Round::ownCpuBound), 2) + "×",
                fmt(push, 2) + "× (" + fmt(push / bound, 2) + "× the bound)", cmd, atLeast(push, PUSH_MIN));
        String at = " at " + fmt(r.median(DestinationsPhase.Round::pacedRate), 0) + " pushes/s";
        double own = r.median(DestinationsPhase.Round::pacedPushP50Ms);
        row(t3, fmt(p50, 2) + " ms" + at + "; the push's own answer p50 at that rate " + fmt(own, 2)
                + " ms (a delivery follows the commit), delivery's part " + fmt(r.median(DestinationsPhase.Round::deliveryOwnP50Ms), 2)
                + " ms; CPU a push at that rate, its delivery included, " + split(r, DestinationsPhase.Round::splitPaced),
                fmt(p50 / P50_MAX_MS, 2) + "× the 20 ms", cmd, atMost(p50, P50_MAX_MS));
        row(t4, fmt(p99, 2) + " ms" + at, fmt(p99 / P99_MAX_MS, 2) + "× the 100 ms", cmd, atMost(p99, P99_MAX_MS));
        line();
        return md.toString();
    }

    /** The phase's own table. */
    String section() {
        md.setLength(0);
        DestinationsPhase.Result r = s.destinations;
        if (r == null || r.rounds.isEmpty()) {
            return "";
        }
        line("## Destinations: push to delivery");
        line();
        line("`bench/run --only destinations`: the service in the server shape (`" + r.settings + "`) with one HTTP");
        line("destination, signed, whose receiver is a Vert.x HTTP server in the suite's JVM on 127.0.0.1 answering 200;");
        line(DestinationsPhase.PRODUCERS + " producers of one-item pushes, producer c to partition p{c} of "
                + DestinationsPhase.PARTITIONS + ". Per round: a closed loop on a queue");
        line("without a destination and one on the queue with it (alternating which goes first), then the queue with it");
        line("paced at half that round's push rate. Delivered/s: arrivals at the receiver during the measured period;");
        line("latency: from a push's send time (System.nanoTime, carried in its payload) to its arrival at the receiver,");
        line("same JVM, for each message sent in the paced period. After each cell the destination drains before the");
        line("next starts. " + s.rounds + " rounds × (" + fmt(s.warmup.toMillis() / 1000.0, 1) + " s warm-up + "
                + fmt(s.measure.toMillis() / 1000.0, 1) + " s measured) per cell. CPU: the whole machine's busy time over");
        line("a closed loop's measured period (/proc/stat: load generator, service, receiver and database together) per");
        line("push answered; with the destination it holds the push's delivery too. When both loops keep every core busy,");
        line("pushes with ÷ without can be at most the CPU a push takes without ÷ the CPU it takes with (the bound).");
        line("Whose CPU: the service's process, the database server's processes and the suite's JVM (load generator and");
        line("receiver), each from /proc over the same period, µs per push; the bound without the harness counts the first two.");
        line("Push p50: the pushes' own answer time in the paced period.");
        line();
        line("| round | pushes/s without | pushes/s with | delivered/s | backlog at the end | µs CPU a push without / with | cores busy without / with | CPU bound | µs a push with: service / database / harness | bound without the harness | paced pushes/s | push p50 ms | µs a push paced: service / database / harness | p50 ms | p99 ms | max ms | messages timed |");
        line("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
        for (int i = 0; i < r.rounds.size(); i++) {
            DestinationsPhase.Round x = r.rounds.get(i);
            line("| " + (i + 1) + " | " + fmt(x.pushedWithout(), 0) + " | " + fmt(x.pushedWith(), 0) + " | "
                    + fmt(x.deliveredWith(), 0) + " | " + fmt(x.backlogAtEnd(), 0) + " | " + fmt(x.cpuUsWithout(), 0) + " / "
                    + fmt(x.cpuUsWith(), 0) + " | " + fmt(100 * x.busyWithout(), 0) + "% / " + fmt(100 * x.busyWith(), 0) + "% | "
                    + fmt(x.cpuBound(), 2) + " | " + cells(x.splitWith()) + " | " + fmt(x.ownCpuBound(), 2) + " | "
                    + fmt(x.pacedPushed(), 0) + " | " + fmt(x.pacedPushP50Ms(), 2) + " | " + cells(x.splitPaced()) + " | "
                    + fmt(x.p50Ms(), 2) + " | " + fmt(x.p99Ms(), 2) + " | " + fmt(x.maxMs(), 2) + " | "
                    + fmt(x.latencies(), 0) + " |");
        }
        line();
        line("Over the phase: " + fmt(r.delivered, 0) + " distinct messages delivered, " + r.duplicates
                + " repeats after the warm-up, " + r.errors + " failed pushes"
                + (r.firstError == null ? "" : " (first: " + r.firstError.replace('|', '/') + ")") + ".");
        line();
        return md.toString();
    }

    private static String cells(DestinationsPhase.Split x) {
        return fmt(x.serviceUs(), 0) + " / " + fmt(x.databaseUs(), 0) + " / " + fmt(x.harnessUs(), 0);
    }

    /** Medians over the rounds of a cell's CPU split: "service N µs, database N µs, load generator and receiver N µs". */
    private static String split(DestinationsPhase.Result r, java.util.function.Function<DestinationsPhase.Round, DestinationsPhase.Split> cell) {
        return "service " + fmt(r.median(x -> cell.apply(x).serviceUs()), 0) + " µs, database "
                + fmt(r.median(x -> cell.apply(x).databaseUs()), 0) + " µs, load generator and receiver "
                + fmt(r.median(x -> cell.apply(x).harnessUs()), 0) + " µs";
    }

    private static String atMost(double v, double max) {
        return Double.isNaN(v) ? "not measured" : v <= max ? "**met**" : "**not met**";
    }

    private static String atLeast(double v, double min) {
        return Double.isNaN(v) ? "not measured" : v >= min ? "**met**" : "**not met**";
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
