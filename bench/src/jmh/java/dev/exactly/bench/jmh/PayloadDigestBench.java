package dev.exactly.bench.jmh;

import dev.exactly.engine.PayloadDigest;
import dev.exactly.http.RawJson;
import java.nio.charset.StandardCharsets;
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
 * Cost of a payload digest (XXH3-128 of the payload bytes, 16 bytes out), which the push path
 * computes once per item: compare with RequestGroupingBench's cost per item (UUIDv7, key hash,
 * grouping), which now includes it. Beside it, the lone-surrogate scan that binding every stored
 * JSON value runs ({@link RawJson#loneSurrogateEscape}), on the same bytes.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PayloadDigestBench {

    /** Payload size in bytes (64: a small event; 1024; 65536: a large webhook body). */
    @Param({"64", "1024", "65536"})
    public int bytes;

    private byte[] payload;

    /** Builds a JSON-like payload of the given size, with escapes in its strings. */
    @Setup
    public void setUp() {
        StringBuilder b = new StringBuilder("{\"items\":[");
        while (b.length() < bytes) {
            b.append("{\"s\":\"caf\\u00e9\\n\",\"n\":").append(b.length()).append("},");
        }
        payload = b.substring(0, bytes).getBytes(StandardCharsets.UTF_8);
    }

    /** One digest. */
    @Benchmark
    public byte[] digest() {
        return PayloadDigest.of(payload);
    }

    /** The lone-surrogate scan of the same bytes. */
    @Benchmark
    public int scan() {
        return RawJson.loneSurrogateEscape(payload);
    }
}
