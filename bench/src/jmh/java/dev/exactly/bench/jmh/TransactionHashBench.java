package dev.exactly.bench.jmh;

import dev.exactly.engine.TransactionHash;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/** Cost of the deduplication identity: XXH3-128 of a transactionId's UTF-8 bytes, 16 bytes out. */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class TransactionHashBench {

    /** transactionId length in characters (36 = a UUID's text). */
    @Param({"12", "36", "128"})
    public int length;

    private String id;

    /** Builds the id. */
    @Setup
    public void setUp() {
        StringBuilder b = new StringBuilder();
        while (b.length() < length) {
            b.append("order-").append(b.length());
        }
        id = b.substring(0, length);
    }

    /** One hash. */
    @Benchmark
    public byte[] hash() {
        return TransactionHash.of(id);
    }
}
