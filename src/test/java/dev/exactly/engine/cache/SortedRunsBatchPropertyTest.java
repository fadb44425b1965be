package dev.exactly.engine.cache;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * A property of {@link SortedRuns#containsAny}, run by jqwik beside the rules of {@link
 * SortedRunsTest}: whatever the list and the batch, the batch answers as per-hash lookups do and
 * leaves the caller's array unchanged.
 */
class SortedRunsBatchPropertyTest {

    /** Property: on a random list (blocks and a hot buffer, some high halves shared), a random
     * batch of resident, near-miss and random probes answers as the per-hash lookups do. */
    @Property(tries = 60)
    void aRandomBatchAnswersAsPerHashLookups(@ForAll long seed, @ForAll @IntRange(min = 0, max = 40_000) int size,
            @ForAll @IntRange(min = 0, max = 600) int batch, @ForAll @IntRange(min = 0, max = 3) int resident) {
        Random rnd = new Random(seed);
        long[] his = new long[Math.max(1, size)];
        long[] los = new long[Math.max(1, size)];
        SortedRuns r = SortedRunsTest.mixed(rnd, size, his, los);
        long[] probe = new long[2 * batch];
        for (int i = 0; i < batch; i++) {
            int k = size == 0 ? 0 : rnd.nextInt(size);
            probe[2 * i] = rnd.nextInt(3) == 0 ? rnd.nextLong() : his[k];
            probe[2 * i + 1] = los[k] + 1 + rnd.nextInt(3); // near misses
        }
        for (int j = 0; j < resident && batch > 0 && size > 0; j++) {
            int k = rnd.nextInt(size);
            int at = rnd.nextInt(batch);
            probe[2 * at] = his[k];
            probe[2 * at + 1] = los[k];
        }
        boolean any = SortedRunsTest.checkedBatch(r, probe, batch, "seed " + seed);
        if (resident > 0 && batch > 0 && size > 0) {
            assertTrue(any, "a resident hash in the batch, seed " + seed);
        }
    }
}
