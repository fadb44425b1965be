package dev.exactly.bench.jmh;

import dev.exactly.engine.cache.ResidentHashes;
import dev.exactly.engine.cache.SortedRuns;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Cost of the warm cache's batch lookup (dev.exactly.engine.cache.SortedRuns#containsAny, called
 * through the ResidentHashes interface as WarmDedupCache's watermark calls it once per flush) on
 * one partition holding {@code resident} random hashes, for a batch of {@code n} random hashes of
 * which none is resident (the usual case: new transactionIds). The batches rotate through 64
 * different ones, so no one batch's search path stays warm. 20,000 hashes are four blocks and a
 * hot buffer of 3,616; 130,000 are 31 blocks (too few to merge) and 3,024; 1,000,000 are 16 runs
 * (merged) and 576.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CacheBatchLookupBench {

    /** Hashes resident in the partition. */
    @Param({"20000", "130000", "1000000"})
    public int resident;

    /** Hashes in the batch, none resident. */
    @Param({"1", "100", "400"})
    public int n;

    private static final int BATCHES = 64;

    private ResidentHashes hashes;
    private long[][] batches;
    private int next;

    /** Fills the set with random hashes and draws the absent batches. */
    @Setup
    public void setUp() {
        SplittableRandom r = new SplittableRandom(42);
        hashes = filled(r, resident);
        batches = new long[BATCHES][2 * n];
        for (long[] b : batches) {
            for (int i = 0; i < b.length; i++) {
                b[i] = r.nextLong();
            }
        }
    }

    /** One batch lookup of n absent hashes. */
    @Benchmark
    public boolean containsAny() {
        long[] b = batches[next];
        next = (next + 1) & (BATCHES - 1);
        return hashes.containsAny(b, n);
    }

    /** A {@link SortedRuns} of {@code resident} random hashes from {@code r}, hash i at offset and time i. */
    static ResidentHashes filled(SplittableRandom r, int resident) {
        ResidentHashes h = new SortedRuns();
        for (int i = 0; i < resident; i++) {
            h.add(r.nextLong(), r.nextLong(), i, i);
        }
        return h;
    }
}
