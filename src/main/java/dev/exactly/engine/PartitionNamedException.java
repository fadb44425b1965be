package dev.exactly.engine;

/**
 * An item names a partition on a queue that spreads its messages by key (spreadPartitions N ≥ 2):
 * the key decides the partition there ({@link KeySpread}), so that the same key is always probed in
 * the same partition. Honouring a named partition would store the key a second time next to its
 * spread copy, so the whole request is refused before anything is written.
 */
public final class PartitionNamedException extends IllegalArgumentException {

    private final int index;

    /**
     * @param index     the item's position in the request (0-based)
     * @param queue     its queue
     * @param partition the partition it named
     * @param spread    the queue's spreadPartitions
     */
    public PartitionNamedException(int index, String queue, String partition, int spread) {
        super("queue '" + queue + "' spreads its messages over " + spread + " partitions by transactionId "
                + "(spreadPartitions), so an item may not name a partition ('" + partition + "'); leave partition out");
        this.index = index;
    }

    /** @return the item's position in the request (0-based) */
    public int index() {
        return index;
    }
}
