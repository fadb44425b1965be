package dev.exactly.bench;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * Warms a service until its throughput settles, before any measured round. A fresh JVM spends its
 * first minute or so compiling (on this 2-core machine the JIT's compiler threads took more CPU
 * than the service's event loops during the first 90 s of a one-item push load, 44 s of
 * compilation), so a measured cell that follows a few seconds of warm-up measures the JIT, and
 * two services started together warm at different rates. This runs the given workloads in turn,
 * {@value #CHUNK_SECONDS} s each, until one whole cycle's rates are all within
 * {@value #TOLERANCE} of the previous cycle's (and at least {@code minimum} has passed), or until
 * {@code maximum}.
 */
final class JitWarmup {

    static final int CHUNK_SECONDS = 4;
    static final double TOLERANCE = 0.10;

    private JitWarmup() {
    }

    /**
     * @param base      the service
     * @param apiKey    its API key
     * @param clients   requests in flight
     * @param workloads what to push, in turn (their queues receive the warm-up's messages)
     * @param minimum   the least warm-up
     * @param maximum   the most warm-up
     * @return a line for the log: how long it took and the last cycle's rates
     * @throws InterruptedException when interrupted
     */
    static String settle(URI base, String apiKey, int clients, List<Workload> workloads, Duration minimum,
                         Duration maximum) throws InterruptedException {
        long start = System.nanoTime();
        double[] previous = null;
        double[] rates = new double[workloads.size()];
        while (true) {
            for (int i = 0; i < workloads.size(); i++) {
                rates[i] = HttpLoad.run(new HttpLoad.Options(base, apiKey, clients, Duration.ZERO,
                        Duration.ofSeconds(CHUNK_SECONDS), 100_000_000), workloads.get(i)).msgsPerSecond();
            }
            Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
            boolean settled = previous != null;
            for (int i = 0; settled && i < rates.length; i++) {
                settled = previous[i] > 0 && Math.abs(rates[i] - previous[i]) <= TOLERANCE * previous[i];
            }
            if ((settled && elapsed.compareTo(minimum) >= 0) || elapsed.compareTo(maximum) >= 0) {
                StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%s after %d s (%s):",
                        settled ? "settled" : "not settled", elapsed.toSeconds(), base));
                for (double r : rates) {
                    b.append(String.format(Locale.ROOT, " %.0f", r));
                }
                return b.append(" msgs/s").toString();
            }
            previous = rates.clone();
        }
    }
}
