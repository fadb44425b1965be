package dev.exactly.destination;

/**
 * Asks for a drain of a queue's destinations to run elsewhere ({@link DeliveryConfig.Mode#INVOCATION}):
 * the Lambda shape implements it as an asynchronous invocation of the function itself with the event
 * {@code {"exactly":"deliver","queue":"<queue>"}}. Without an implementation, stored messages wait for
 * the next scheduled drain.
 */
public interface DrainTrigger {

    /**
     * Asks for a drain of the queue's destinations; returns once the request was accepted.
     *
     * @param queue the queue whose destinations should deliver
     * @throws RuntimeException when the request could not be made (the caller logs it; the
     *                          scheduled drain delivers the messages later)
     */
    void requestDrain(String queue);
}
