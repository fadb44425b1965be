package dev.exactly.message;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonRawValue;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

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
@RegisterForReflection
@JsonInclude(JsonInclude.Include.NON_NULL)
public record MessageView(UUID messageId, String queue, String partition, long offset, String transactionId,
                          @JsonRawValue @Schema(ref = "AnyJson") String payload, String payloadBase64, String contentType,
                          @JsonRawValue @Schema(ref = "AnyJson") String headers, String traceId, OffsetDateTime createdAt) {

    /** The wire form of a stored message (payload by {@link PayloadWire}). */
    public static MessageView of(StoredMessage m) {
        PayloadWire p = PayloadWire.of(m.payload(), m.contentType());
        return new MessageView(m.messageId(), m.queue(), m.partition(), m.offset(), m.transactionId(),
                p.json(), p.base64(), m.contentType(), m.headersJson(), m.traceId(), m.createdAt());
    }
}
