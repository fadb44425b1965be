package dev.exactly.bench.jmh;

import dev.exactly.engine.PushCommand;
import dev.exactly.engine.RequestGrouping;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
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
 * Cost of layer 1 for one request: settling in-request duplicates, minting UUIDv7 message ids,
 * hashing, and grouping leaders into per-partition segments (RequestGrouping.of).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class RequestGroupingBench {

    /** Items in the request. */
    @Param({"1", "100", "1000"})
    public int items;

    /** Partitions the items spread over (round robin). */
    @Param({"1", "1000"})
    public int partitions;

    private List<PushCommand> commands;

    /** Builds the request: 10% of the items repeat an earlier transactionId of the request. */
    @Setup
    public void setUp() {
        byte[] payload = "{\"n\":1}".getBytes(StandardCharsets.UTF_8);
        commands = new ArrayList<>(items);
        for (int i = 0; i < items; i++) {
            int id = i % 10 == 9 ? i - 9 : i;
            commands.add(PushCommand.json("orders", "p" + (id % partitions), "txn-" + id, payload, null));
        }
    }

    /** Groups one request. */
    @Benchmark
    public RequestGrouping group() {
        return RequestGrouping.of(commands);
    }
}
