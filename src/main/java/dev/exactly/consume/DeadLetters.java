package dev.exactly.consume;

/**
 * Dead-letter naming: a message of queue Q, partition P that fails more than Q's retryLimit
 * times (or is acked with status "dlq") is copied to queue {@code Q.dlq}, partition P, created on
 * first use with default options. The copy keeps the payload, content type and trace id; its
 * transactionId is its own new message id; its headers carry "x-exactly-dead-letter" with the
 * origin (queue, partition, offset, messageId, transactionId, consumerGroup, attempts, status,
 * error, deadLetteredAt). A dead-letter queue is an ordinary queue: pop and ack it like any other.
 * The same rule is spelt in sql/R__consume.sql (exactly.dead_letter).
 */
public final class DeadLetters {

    /** Appended to a queue's name to name its dead-letter queue. */
    public static final String SUFFIX = ".dlq";

    private DeadLetters() {
    }

    /** @return the dead-letter queue of {@code queue} */
    public static String queueOf(String queue) {
        return queue + SUFFIX;
    }
}
