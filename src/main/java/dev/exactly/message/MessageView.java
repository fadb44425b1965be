package dev.exactly.message;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonRawValue;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.Base64;
import java.util.UUID;

/**
 * A stored message on the wire. A JSON payload is returned as JSON, byte for byte as pushed (a
 * webhook body: when its media type is JSON and its bytes are well-formed UTF-8 JSON); any other
 * payload (a webhook body of another media type, or not well-formed) as base64 in payloadBase64.
 *
 * @param messageId     its id
 * @param queue         queue name
 * @param partition     partition name
 * @param offset        offset in the partition
 * @param transactionId idempotency key
 * @param payload       the JSON payload, raw, or null
 * @param payloadBase64 a non-JSON payload in base64 (RFC 4648), or null
 * @param contentType   media type of a non-JSON or webhook payload, or null
 * @param headers       kept request headers (JSON object, raw), or null
 * @param traceId       trace id, or null
 * @param createdAt     when it was stored
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record MessageView(UUID messageId, String queue, String partition, long offset, String transactionId,
                          @JsonRawValue @Schema(ref = "AnyJson") String payload, String payloadBase64, String contentType,
                          @JsonRawValue @Schema(ref = "AnyJson") String headers, String traceId, OffsetDateTime createdAt) {

    /** The wire form of a stored message. */
    public static MessageView of(StoredMessage m) {
        // the push API stores JSON it has parsed (no content type); a webhook body is shown raw
        // only when its media type says JSON AND its bytes are well-formed UTF-8 JSON
        String json = !m.isJson() ? null
                : m.contentType() == null ? new String(m.payload(), StandardCharsets.UTF_8) : JsonText.wellFormed(m.payload());
        return new MessageView(m.messageId(), m.queue(), m.partition(), m.offset(), m.transactionId(),
                json,
                json != null ? null : Base64.getEncoder().encodeToString(m.payload()),
                m.contentType(), m.headersJson(), m.traceId(), m.createdAt());
    }
}
