package dev.exactly.engine;

import java.util.List;

/**
 * The leader items of one partition in one request or flush, in arrival order. The store
 * answers a segment with one SQL function call under the partition's row lock.
 *
 * @param partition the partition they go to
 * @param items     leader items, in arrival order, no two with the same transaction hash
 * @param spread    the queue's spreadPartitions the items were routed with (0: not spread); the
 *                  store refuses the segment when it is not the queue's own ({@link SpreadChangedException})
 */
public record Segment(PartitionKey partition, List<PushItem> items, int spread) {

    /** A segment of a queue that does not spread by key. */
    public Segment(PartitionKey partition, List<PushItem> items) {
        this(partition, items, 0);
    }
}
