package dev.exactly.destination;

import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.List;

/**
 * The answer to a destination's replay: where delivery now resumes in each partition replayed.
 *
 * @param partitions each partition replayed, by name
 */
@RegisterForReflection
public record DestinationReplayed(List<Partition> partitions) {

    /**
     * One partition's cursor after the replay.
     *
     * @param partition  the partition's name
     * @param nextOffset the next offset delivered to the destination (the replay's start when it
     *                   moved the cursor back; unchanged when the destination had not reached it yet)
     */
    @RegisterForReflection
    public record Partition(String partition, long nextOffset) {
    }
}
