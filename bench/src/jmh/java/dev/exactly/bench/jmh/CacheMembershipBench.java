package dev.exactly.bench.jmh;

import dev.exactly.engine.cache.ResidentHashes;
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
 * Cost of the warm cache's membership test (dev.exactly.engine.cache.SortedRuns, called through
 * the ResidentHashes interface as the cache calls it) on one partition holding {@code resident}
 * hashes: one lookup of a hash that is not resident (the common case, a new transactionId), and
 * one batch lookup of a 100-hash segment, none resident.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CacheMembershipBench {

    /** Hashes resident in the partition. */
    @Param({"10000", "1000000"})
    public int resident;

    private ResidentHashes hashes;
    private final long[] probes = new long[2 * 1024];
    private final long[] segment = new long[2 * 100];
    private int next;

    /** Fills the set with random hashes and draws absent ones to look up. */
    @Setup
    public void setUp() {
        SplittableRandom r = new SplittableRandom(42);
        hashes = CacheBatchLookupBench.filled(r, resident);
        for (int i = 0; i < probes.length; i++) {
            probes[i] = r.nextLong();
        }
        for (int i = 0; i < segment.length; i++) {
            segment[i] = r.nextLong();
        }
    }

    /** One absent hash. */
    @Benchmark
    public boolean containsOne() {
        int i = next;
        next = (i + 2) & (probes.length - 1);
        return hashes.contains(probes[i], probes[i + 1]);
    }

    /** A segment of 100 absent hashes, batch lookup. */
    @Benchmark
    public boolean containsAnyOfSegment() {
        return hashes.containsAny(segment, 100);
    }
}
