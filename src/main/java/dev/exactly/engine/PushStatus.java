package dev.exactly.engine;

/** The verdict for one pushed item. */
public enum PushStatus {
    /** Stored: a new message with a new offset. */
    QUEUED,
    /** Not stored: the transactionId was already stored in the partition within the window. */
    DUPLICATE;

    /** The wire spelling: "queued" or "duplicate". */
    public String wire() {
        return this == QUEUED ? "queued" : "duplicate";
    }
}
