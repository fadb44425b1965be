package dev.exactly.engine;

/**
 * Names a partition: a queue and a partition within it. Deduplication is scoped to it.
 *
 * @param queue     queue name
 * @param partition partition name
 */
public record PartitionKey(String queue, String partition) implements Comparable<PartitionKey> {

    @Override
    public int compareTo(PartitionKey o) {
        int c = queue.compareTo(o.queue);
        return c != 0 ? c : partition.compareTo(o.partition);
    }
}
