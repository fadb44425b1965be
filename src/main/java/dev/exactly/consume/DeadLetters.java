package dev.exactly.consume;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Dead-letter naming: a message of queue Q, partition P whose deliveries are used up (1 +
 * retryLimit of them ended by a failed ack or an expired lease), or acked with status "dlq", is
 * copied to queue {@link #queueOf(String) queueOf(Q)}, partition P, created on first use with
 * default options. The copy keeps the payload, content type and trace id; its transactionId is its
 * own new message id; its headers carry "x-exactly-dead-letter" with the origin (queue, partition,
 * offset, messageId, transactionId, consumerGroup, attempts, status, error, deadLetteredAt). A
 * dead-letter queue is an ordinary queue: pop and ack it like any other. The database applies the
 * same rule ({@code exactly.dead_letter_queue} in sql/R__consume.sql; DeadLetterNameTest checks
 * that both agree).
 */
public final class DeadLetters {

    /** Appended to a queue's name to name its dead-letter queue. */
    public static final String SUFFIX = ".dlq";

    /** Longest queue name (the name rule of every queue). */
    static final int MAX_NAME = 255;

    /** Characters of the queue's name kept when {@code name + SUFFIX} would not fit. */
    static final int KEPT = 234;

    private DeadLetters() {
    }

    /**
     * @param queue a queue name (1 to 255 characters of [A-Za-z0-9._:-])
     * @return its dead-letter queue: {@code queue + ".dlq"} when that is at most 255 characters,
     *         else the first 234 characters, "-", the first 16 hex digits of the SHA-256 (FIPS
     *         180-4) of the whole name in UTF-8, and ".dlq" (255 characters)
     */
    public static String queueOf(String queue) {
        if (queue.length() + SUFFIX.length() <= MAX_NAME) {
            return queue + SUFFIX;
        }
        try {
            byte[] sha = MessageDigest.getInstance("SHA-256").digest(queue.getBytes(StandardCharsets.UTF_8));
            return queue.substring(0, KEPT) + "-" + HexFormat.of().formatHex(sha, 0, 8) + SUFFIX;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
    }
}
