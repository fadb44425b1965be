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
 * Cost of the lone-surrogate check ({@link RawJson#loneSurrogateEscape}) that binding every
 * stored JSON value now runs, beside the payload digest the push path already computes per item
 * (the same payloads as PayloadDigestBench, with escapes in their strings).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RawJsonScanBench {

    /** Payload size in bytes (64: a small event; 1024; 65536: a large webhook body). */
    @Param({"64", "1024", "65536"})
    public int bytes;

    private byte[] payload;

    /** Builds a JSON-like payload of the given size whose strings hold escapes. */
    @Setup
    public void setUp() {
        StringBuilder b = new StringBuilder("{\"items\":[");
        while (b.length() < bytes) {
            b.append("{\"s\":\"caf\\u00e9\\n\\\"q\\\"\",\"n\":").append(b.length()).append("},");
        }
        payload = b.substring(0, bytes).getBytes(StandardCharsets.UTF_8);
    }

    /** The lone-surrogate scan of one value. */
    @Benchmark
    public int scan() {
        return RawJson.loneSurrogateEscape(payload);
    }

    /** The digest of the same bytes, for scale. */
    @Benchmark
    public byte[] digest() {
        return PayloadDigest.of(payload);
    }
}
