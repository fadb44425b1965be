package dev.exactly.engine;

/**
 * One item to push, as the engine sees it after the adapter validated it.
 *
 * @param queue         queue name
 * @param partition     partition name within the queue
 * @param transactionId the idempotency key, or null when the producer gave none (the item then
 *                      uses its own message id and is never a duplicate)
 * @param payload       the exact bytes to store (JSON text for the push API, a raw body for webhooks)
 * @param contentType   media type of the payload, or null for application/json
 * @param headersJson   a JSON object of selected request headers to keep, or null
 * @param traceId       an optional trace id stored with the message, or null
 */
public record PushCommand(String queue, String partition, String transactionId, byte[] payload,
                          String contentType, String headersJson, String traceId) {

    /** A JSON push with no headers and no content type. */
    public static PushCommand json(String queue, String partition, String transactionId, byte[] payload,
                                   String traceId) {
        return new PushCommand(queue, partition, transactionId, payload, null, null, traceId);
    }
}
