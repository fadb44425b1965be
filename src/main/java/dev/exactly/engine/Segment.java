package dev.exactly.engine;

import java.util.List;

/**
 * The leader items of one partition in one request or flush, in arrival order. The store
 * answers a segment with one SQL function call under the partition's row lock.
 *
 * @param partition the partition they go to
 * @param items     leader items, in arrival order, no two with the same transaction hash
 */
public record Segment(PartitionKey partition, List<PushItem> items) {
}
