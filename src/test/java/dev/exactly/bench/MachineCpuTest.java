package dev.exactly.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;

/**
 * The bench's reading of the machine's busy CPU (spread phase): which fields of /proc/stat's
 * aggregate line count as busy, and that a reading grows by at least the CPU this thread burnt.
 */
class MachineCpuTest {

    /** Keeps the burn loop's result alive. */
    private static volatile long sink;

    @Test
    void busyIsEveryStateButIdleAndIowaitUpToSteal() {
        // user nice system idle iowait irq softirq steal guest guest_nice
        assertEquals((100 + 2 + 30 + 4 + 5 + 6) * 0.01,
                MachineCpu.busySeconds("cpu  100 2 30 999 888 4 5 6 77 66"), 1e-9);
        assertEquals((1 + 2 + 3) * 0.01, MachineCpu.busySeconds("cpu 1 2 3 4"), 1e-9);
        assertThrows(IllegalStateException.class, () -> MachineCpu.busySeconds("cpu0 1 2 3 4 5"));
    }

    @Test
    void aReadingGrowsByAtLeastTheCpuThisThreadBurnt() {
        assumeTrue(MachineCpu.available(), "needs Linux /proc/stat");
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        double before = MachineCpu.busySeconds();
        long cpu0 = threads.getCurrentThreadCpuTime();
        long x = 0;
        while (threads.getCurrentThreadCpuTime() - cpu0 < 300_000_000L) {
            x += Long.numberOfTrailingZeros(x * 31 + 7);
        }
        double burnt = (threads.getCurrentThreadCpuTime() - cpu0) / 1e9;
        double after = MachineCpu.busySeconds();
        sink = x;
        // ticks are 10 ms; allow two of them of rounding at each end
        assertTrue(after - before >= burnt - 0.04, "machine busy " + (after - before) + " s < burnt " + burnt + " s");
    }

    @Test
    void awaitingQuietReturnsTheLastReadingAsAShareOfAllCores() throws Exception {
        assumeTrue(MachineCpu.available(), "needs Linux /proc/stat");
        // every reading is at most all cores busy (give or take a tick), so a bound of 2 is met by the first one
        long t = System.nanoTime();
        double busy = MachineCpu.awaitQuiet(2.0, java.time.Duration.ofSeconds(60));
        double seconds = (System.nanoTime() - t) / 1e9;
        assertTrue(busy >= 0 && busy <= 1.05, "share " + busy);
        assertTrue(seconds >= 2 && seconds < 30, "one two-second reading, took " + seconds + " s");
    }
}
