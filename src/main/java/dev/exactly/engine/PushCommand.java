package dev.exactly.engine;

/**
 * One item to push, as the engine sees it after the adapter validated it.
 *
 * @param queue          queue name
 * @param partition      partition name within the queue ({@link #DEFAULT_PARTITION} when the producer named none)
 * @param transactionId  the idempotency key, or null when the producer gave none (the item then
 *                       uses its own message id and is never a duplicate)
 * @param payload        the exact bytes to store (JSON text for the push API, a raw body for webhooks)
 * @param contentType    media type of the payload, or null for application/json
 * @param headersJson    a JSON object of string values to keep with the message (a webhook's selected
 *                       request headers, a push item's headers), or null
 * @param traceId        an optional trace id stored with the message, or null
 * @param partitionNamed true when the producer chose the partition: refused on a queue that spreads
 *                       by key ({@link PartitionNamedException}); false when it is a default (no
 *                       partition given, a redrive's origin) that such a queue replaces with the
 *                       key's partition ({@link KeySpread})
 */
public record PushCommand(String queue, String partition, String transactionId, byte[] payload,
                          String contentType, String headersJson, String traceId, boolean partitionNamed) {

    /** The partition of an item that names none, on a queue that does not spread by key. */
    public static final String DEFAULT_PARTITION = "Default";

    /** An item whose partition was named by the producer (see {@link #partitionNamed}). */
    public PushCommand(String queue, String partition, String transactionId, byte[] payload,
                       String contentType, String headersJson, String traceId) {
        this(queue, partition, transactionId, payload, contentType, headersJson, traceId, true);
    }

    /**
     * A JSON push with no headers and no content type.
     *
     * @param partition the partition named, or null for none ({@link #DEFAULT_PARTITION}, or the key's
     *                  partition on a queue that spreads by key). {@link #DEFAULT_PARTITION} itself
     *                  counts as none, so that it is spread there too, as a webhook source's default
     *                  is (and a client that always sends the documented default is not refused)
     */
    public static PushCommand json(String queue, String partition, String transactionId, byte[] payload,
                                   String traceId) {
        return json(queue, partition, transactionId, payload, null, traceId);
    }

    /**
     * A JSON push with no content type.
     *
     * @param partition   as in {@link #json(String, String, String, byte[], String)}
     * @param headersJson the item's headers as a JSON object of strings, or null
     */
    public static PushCommand json(String queue, String partition, String transactionId, byte[] payload,
                                   String headersJson, String traceId) {
        return partition == null || DEFAULT_PARTITION.equals(partition)
                ? new PushCommand(queue, DEFAULT_PARTITION, transactionId, payload, null, headersJson, traceId, false)
                : new PushCommand(queue, partition, transactionId, payload, null, headersJson, traceId, true);
    }
}
