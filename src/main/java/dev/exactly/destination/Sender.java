package dev.exactly.destination;

/**
 * Sends one message to a destination: one attempt, blocking (called on a delivery worker thread,
 * never on an event loop). One implementation per destination type ({@link Senders} picks it).
 */
interface Sender extends AutoCloseable {

    /**
     * What one attempt came to.
     *
     * @param delivered    the receiver accepted it (a 2xx, or the AWS service's acceptance)
     * @param status       the HTTP status, 0 when there was none
     * @param retryAfterMs the answer's Retry-After in milliseconds, or null
     * @param error        why it was not delivered, or null
     * @param permanent    no later attempt can deliver it (e.g. over the service's size limit): it is
     *                     dead-lettered for the destination at once
     */
    record Result(boolean delivered, int status, Long retryAfterMs, String error, boolean permanent) {

        /** An attempt that a later one may repeat. */
        Result(boolean delivered, int status, Long retryAfterMs, String error) {
            this(delivered, status, retryAfterMs, error, false);
        }

        /** @return an attempt that no later one can improve on, with why */
        static Result refused(String error) {
            return new Result(false, 0, null, error, true);
        }
    }

    /** One message to send. */
    record Outgoing(String messageId, String queue, String partition, long offset, String transactionId,
                    String contentType, byte[] body) {
    }

    /**
     * Makes one attempt.
     *
     * @param d       the destination
     * @param m       the message
     * @param attempt the attempt's number, 1 the first time
     * @return what it came to (never throws for the receiver's or the network's faults; the dispatcher counts
     *         anything thrown as a failed attempt)
     */
    Result send(Destination d, Outgoing m, int attempt);

    @Override
    void close();

    /**
     * Lets go of what this sender holds for a destination that was deleted (its connections); a
     * later send for that name starts afresh.
     *
     * @param destination the destination's name
     */
    default void forget(String destination) {
    }
}
