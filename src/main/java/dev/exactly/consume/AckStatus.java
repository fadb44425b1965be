package dev.exactly.consume;

import com.fasterxml.jackson.annotation.JsonValue;

/** What a consumer says about a delivered message. */
public enum AckStatus {
    /** Processed: settled for the consumer group, never delivered to it again. */
    COMPLETED("completed"),
    /**
     * Processing failed: delivered again after the queue's retryDelay (milliseconds), until it
     * has failed more than retryLimit times, then moved to the dead-letter queue.
     */
    FAILED("failed"),
    /** Same as {@link #FAILED}: the consumer asks for a later redelivery; counts as an attempt. */
    RETRY("retry"),
    /** Moved to the dead-letter queue now, whatever the retries left. */
    DLQ("dlq");

    private final String wire;

    AckStatus(String wire) {
        this.wire = wire;
    }

    /** The JSON spelling (read and written as such), also what sql/R__consume.sql's ack_batch takes. */
    @JsonValue
    public String wire() {
        return wire;
    }

    /** @return the status spelt {@code wire}, or null */
    public static AckStatus byWire(String wire) {
        for (AckStatus s : values()) {
            if (s.wire.equals(wire)) {
                return s;
            }
        }
        return null;
    }
}
