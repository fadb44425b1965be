package dev.exactly.message;

import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * A message as stored.
 *
 * @param messageId     its UUIDv7
 * @param queue         queue name
 * @param partition     partition name
 * @param offset        its offset in the partition
 * @param transactionId its idempotency key
 * @param payload       the exact bytes pushed
 * @param contentType   media type of the payload, null for JSON
 * @param headersJson   kept request headers as a JSON object, or null
 * @param traceId       trace id, or null
 * @param createdAt     when it was stored
 */
public record StoredMessage(UUID messageId, String queue, String partition, long offset, String transactionId,
                            byte[] payload, String contentType, String headersJson, String traceId,
                            OffsetDateTime createdAt) {

    /** True when the payload is JSON text (the push API always stores JSON). */
    public boolean isJson() {
        return contentType == null || PayloadWire.isJsonType(contentType);
    }
}
