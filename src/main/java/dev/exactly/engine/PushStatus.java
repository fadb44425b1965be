package dev.exactly.engine;

/** The verdict for one pushed item. */
public enum PushStatus {
    /** Stored: a new message with a new offset. */
    QUEUED,
    /** Not stored: the transactionId was already stored in the partition within the window. */
    DUPLICATE,
    /**
     * Not stored, and refused: a duplicate whose payload differs from the original's, in a queue
     * whose payloadMismatch option is "reject".
     */
    REJECTED;

    /** The wire spelling: "queued", "duplicate" or "rejected". */
    public String wire() {
        return switch (this) {
            case QUEUED -> "queued";
            case DUPLICATE -> "duplicate";
            case REJECTED -> "rejected";
        };
    }
}
