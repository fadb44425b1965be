package dev.exactly.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The whole machine's busy CPU time, from the first line of Linux /proc/stat: every state but
 * idle and iowait, in seconds summed over all cores (proc(5): the times are in USER_HZ ticks,
 * 100 per second on Linux). Read before and after a cell, it gives the CPU every process of the
 * run took per push: the load generator, the service and the database together.
 */
final class MachineCpu {

    private static final Path STAT = Path.of("/proc/stat");
    private static final double SECONDS_PER_TICK = 0.01;

    private MachineCpu() {
    }

    /** True when /proc/stat can be read (Linux). */
    static boolean available() {
        return Files.isReadable(STAT);
    }

    /**
     * Busy CPU seconds since boot, all cores.
     *
     * @throws IllegalStateException when /proc/stat cannot be read or has no aggregate "cpu" line
     */
    static double busySeconds() {
        try {
            String line = Files.readAllLines(STAT).get(0);
            return busySeconds(line);
        } catch (IOException | IndexOutOfBoundsException e) {
            throw new IllegalStateException("cannot read " + STAT + ": " + e, e);
        }
    }

    /**
     * Waits until the machine's busy CPU over two seconds is below {@code fraction} of its cores,
     * or until {@code max} has passed: background work left by what ran before (a JVM still
     * compiling after its warm-up, the database vacuuming) would otherwise share the cores with
     * the next measurement. Returns at once when /proc/stat cannot be read.
     *
     * @param fraction busy share of all cores to get below, e.g. 0.15
     * @param max      the longest wait
     * @return the last two-second reading, as a share of all cores (NaN when not read)
     * @throws InterruptedException when interrupted
     */
    static double awaitQuiet(double fraction, java.time.Duration max) throws InterruptedException {
        if (!available()) {
            return Double.NaN;
        }
        int cores = Runtime.getRuntime().availableProcessors();
        long deadline = System.nanoTime() + max.toNanos();
        double busy;
        do {
            double a = busySeconds();
            Thread.sleep(2_000);
            busy = (busySeconds() - a) / 2.0 / cores;
        } while (busy >= fraction && System.nanoTime() < deadline);
        return busy;
    }

    /**
     * Busy seconds of an aggregate line {@code cpu user nice system idle iowait irq softirq steal ...}
     * (guest times are already inside user and nice, so they are not added again).
     */
    static double busySeconds(String line) {
        String[] f = line.trim().split("\\s+");
        if (!f[0].equals("cpu") || f.length < 5) {
            throw new IllegalStateException("not the aggregate cpu line of /proc/stat: " + line);
        }
        long busy = 0;
        for (int i = 1; i < f.length && i <= 8; i++) {
            if (i != 4 && i != 5) { // idle, iowait
                busy += Long.parseLong(f[i]);
            }
        }
        return busy * SECONDS_PER_TICK;
    }
}
