package dev.exactly.queue;

import dev.exactly.consume.PopRequest;
import java.util.List;

/**
 * The options a queue carries, their wire names, units, defaults and lower bounds. The defaults
 * equal the column defaults of exactly.queues (sql/V1__schema.sql, V15); a test keeps them equal.
 *
 * <p>Most options are whole numbers. A named option ({@link #named()}: payloadMismatch) takes one
 * of a few names on the wire and in its text column; in Java its value is the name's index in
 * {@link #names()}, so every option's value is an int.
 */
public enum QueueOption {
    /** Deduplication window in seconds; 0 turns the probe off (hashes are still written). */
    DEDUP_WINDOW_SECONDS("dedupWindowSeconds", "dedup_window_seconds", 3600, 0),
    /**
     * How long message data is kept, in seconds; 0 keeps it forever. A transaction hash is kept
     * as long as its message's data and at least the deduplication window (sql/R__retention.sql).
     */
    RETENTION_SECONDS("retentionSeconds", "retention_seconds", 0, 0),
    /**
     * A consumer's lease on a partition, in seconds (a pop's leaseSeconds when it gives none): 1
     * to {@link #MAX_LEASE_SECONDS}, the longest lease a pop may ask for, so a default can never
     * hold a partition longer than an explicit request could.
     */
    LEASE_TIME("leaseTime", "lease_time", 300, 1, QueueOption.MAX_LEASE_SECONDS),
    /**
     * Deliveries after the first before a message goes to the dead-letter queue (exactly.dead_letter_queue
     * in sql/R__consume.sql: "queue.dlq" when it fits): a failed ack and an expired lease each end one.
     */
    RETRY_LIMIT("retryLimit", "retry_limit", 3, 0),
    /** Delay before a failed message is redelivered, in milliseconds. */
    RETRY_DELAY("retryDelay", "retry_delay", 0, 0),
    /**
     * Spread the queue's messages over this many partitions by a hash of the transactionId
     * ({@link dev.exactly.engine.KeySpread}); 0 = off (an item goes to the partition it names).
     * 0 or 2 to {@link dev.exactly.engine.KeySpread#MAX_PARTITIONS}. Changed only while no
     * partition of the queue holds a transaction hash ({@link QueueRepository#write}).
     */
    SPREAD_PARTITIONS("spreadPartitions", "spread_partitions", 0, 0, dev.exactly.engine.KeySpread.MAX_PARTITIONS),
    /**
     * What a duplicate whose payload differs from the original's gets: "report" (the default:
     * answered duplicate with payloadMatches false) or "reject" (refused with 422 for that item,
     * nothing written for it). Values: {@link #REPORT}, {@link #REJECT}.
     */
    PAYLOAD_MISMATCH("payloadMismatch", "payload_mismatch", List.of("report", "reject"));

    /** Longest lease, in seconds (7 days): {@link #LEASE_TIME}'s bound and a pop's or an extend's leaseSeconds'. */
    public static final int MAX_LEASE_SECONDS = PopRequest.MAX_LEASE_SECONDS;

    /** {@link #PAYLOAD_MISMATCH}'s value "report". */
    public static final int REPORT = 0;
    /** {@link #PAYLOAD_MISMATCH}'s value "reject". */
    public static final int REJECT = 1;

    private final String wire;
    private final String column;
    private final int defaultValue;
    private final int min;
    private final int max;
    private final List<String> names;

    QueueOption(String wire, String column, int defaultValue, int min) {
        this(wire, column, defaultValue, min, Integer.MAX_VALUE);
    }

    QueueOption(String wire, String column, int defaultValue, int min, int max) {
        this.wire = wire;
        this.column = column;
        this.defaultValue = defaultValue;
        this.min = min;
        this.max = max;
        this.names = null;
    }

    /**
     * Checks a value.
     *
     * @param value the value asked for
     * @return why it is refused, or null when it is valid
     */
    public String check(int value) {
        if (this == SPREAD_PARTITIONS && (value == 1 || value < 0 || value > max)) {
            return "must be 0 (off) or from 2 to " + max;
        }
        if (value < min) {
            return "must be at least " + min;
        }
        if (value > max) {
            return "must be at most " + max;
        }
        return null;
    }

    /** A named option: its default is the first name. */
    QueueOption(String wire, String column, List<String> names) {
        this.wire = wire;
        this.column = column;
        this.defaultValue = 0;
        this.min = 0;
        this.max = names.size() - 1;
        this.names = names;
    }

    /** @return true when the option takes a name ({@link #names()}) rather than a number */
    public boolean named() {
        return names != null;
    }

    /** @return the names a named option takes, in index order; null for a numeric option */
    public List<String> names() {
        return names;
    }

    /**
     * The wire (and column) form of a value.
     *
     * @param value the option's int value
     * @return an Integer for a numeric option, the name for a named one
     */
    public Object toWire(int value) {
        return named() ? names.get(value) : value;
    }

    /**
     * The value of a name.
     *
     * @param name one of {@link #names()}
     * @return its index
     * @throws IllegalArgumentException for another name, or for a numeric option
     */
    public int indexOf(String name) {
        int i = named() ? names.indexOf(name) : -1;
        if (i < 0) {
            throw new IllegalArgumentException(wire + " takes " + names + ", not " + name);
        }
        return i;
    }

    /** The JSON name. */
    public String wire() {
        return wire;
    }

    /** The exactly.queues column. */
    public String column() {
        return column;
    }

    /** The value an omitted option takes (for a named option, the index of its first name). */
    public int defaultValue() {
        return defaultValue;
    }

    /** The smallest valid value. */
    public int min() {
        return min;
    }

    /** The largest valid value ({@link Integer#MAX_VALUE} when the option has no upper bound). */
    public int max() {
        return max;
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
