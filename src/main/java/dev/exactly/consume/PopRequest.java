package dev.exactly.consume;

import dev.exactly.queue.QueueOption;

/**
 * A validated pop.
 *
 * @param queue         queue name
 * @param partition     partition name, or null for any available partition of the queue
 * @param consumerGroup consumer group
 * @param batch         most messages to return, 1 to {@link #MAX_BATCH}
 * @param leaseSeconds  lease length in seconds, or null for the queue's leaseTime option
 * @param waitMillis    long-poll: how long to wait for a message when none is available, in
 *                      milliseconds, 0 to {@link #MAX_WAIT_MILLIS}
 */
public record PopRequest(String queue, String partition, String consumerGroup, int batch, Integer leaseSeconds,
                         int waitMillis) {

    /** The consumer group of a pop or ack that names none. */
    public static final String DEFAULT_GROUP = "__default";

    /** Most messages one pop returns. */
    public static final int MAX_BATCH = 1000;

    /** Longest long-poll, in milliseconds. */
    public static final int MAX_WAIT_MILLIS = 20_000;

    /** Longest lease a pop may ask for, in seconds (7 days; the queue option leaseTime's bound too). */
    public static final int MAX_LEASE_SECONDS = QueueOption.MAX_LEASE_SECONDS;
}
