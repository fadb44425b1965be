package dev.exactly.queue;

/**
 * The options a queue carries, their wire names, units, defaults and lower bounds. The defaults
 * equal the column defaults of exactly.queues (sql/V1__schema.sql); a test keeps them equal.
 */
public enum QueueOption {
    /** Deduplication window in seconds; 0 turns the probe off (hashes are still written). */
    DEDUP_WINDOW_SECONDS("dedupWindowSeconds", "dedup_window_seconds", 3600, 0),
    /**
     * How long message data is kept, in seconds; 0 keeps it forever. A transaction hash is kept
     * as long as its message's data and at least the deduplication window (sql/R__retention.sql).
     */
    RETENTION_SECONDS("retentionSeconds", "retention_seconds", 0, 0),
    /** A consumer's lease on a partition, in seconds (a pop's leaseSeconds when it gives none). */
    LEASE_TIME("leaseTime", "lease_time", 300, 1),
    /**
     * Deliveries after the first before a message goes to the dead-letter queue (exactly.dead_letter_queue
     * in sql/R__consume.sql: "queue.dlq" when it fits): a failed ack and an expired lease each end one.
     */
    RETRY_LIMIT("retryLimit", "retry_limit", 3, 0),
    /** Delay before a failed message is redelivered, in milliseconds. */
    RETRY_DELAY("retryDelay", "retry_delay", 0, 0);

    private final String wire;
    private final String column;
    private final int defaultValue;
    private final int min;

    QueueOption(String wire, String column, int defaultValue, int min) {
        this.wire = wire;
        this.column = column;
        this.defaultValue = defaultValue;
        this.min = min;
    }

    /** The JSON name. */
    public String wire() {
        return wire;
    }

    /** The exactly.queues column. */
    public String column() {
        return column;
    }

    /** The value an omitted option takes. */
    public int defaultValue() {
        return defaultValue;
    }

    /** The smallest valid value. */
    public int min() {
        return min;
    }

    /** @return the option named {@code wire}, or null */
    public static QueueOption byWire(String wire) {
        for (QueueOption o : values()) {
            if (o.wire.equals(wire)) {
                return o;
            }
        }
        return null;
    }
}
