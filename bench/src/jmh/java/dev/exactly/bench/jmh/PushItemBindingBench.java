package dev.exactly.bench.jmh;

import dev.exactly.engine.PushCommand;
import dev.exactly.http.JsonBodyReader;
import dev.exactly.push.PushRequest;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * The adapter's cost for one single-item push body before the engine: binding (JsonBodyReader),
 * the item's rules across fields ({@code check}, Hibernate Validator's field constraints aside) and
 * the engine's command (with its headers JSON). {@code headers}: none, or four short headers.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PushItemBindingBench {

    /** "none": an item without headers; "four": with four headers. */
    @Param({"none", "four"})
    public String headers;

    private byte[] body;

    /** Builds the body. */
    @Setup
    public void setUp() {
        String h = "none".equals(headers) ? ""
                : ",\"headers\":{\"tenant\":\"acme\",\"schema\":\"order.v2\",\"region\":\"eu-west-1\",\"origin\":\"checkout\"}";
        body = ("{\"items\":[{\"queue\":\"orders\",\"transactionId\":\"order-42\",\"payload\":{\"total\":12.5}" + h + "}]}")
                .getBytes(StandardCharsets.UTF_8);
    }

    /** Binds, checks and builds the command of one item. */
    @Benchmark
    public PushCommand bindCheckCommand(Blackhole bh) {
        PushRequest.Item item = JsonBodyReader.read(PushRequest.class, body).items().get(0);
        item.check((field, why) -> bh.consume(why));
        return item.command();
    }
}
