package dev.exactly.consume;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonRawValue;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * A message delivered by pop. The payload travels as {@link dev.exactly.message.PayloadWire} says:
 * JSON inlined byte for byte as pushed; anything else (a webhook body of another media type, or
 * labelled JSON but not well-formed JSON, or empty) as base64 in payloadBase64.
 *
 * @param messageId      its id
 * @param transactionId  its idempotency key
 * @param queue          queue name
 * @param partition      partition name
 * @param offset         its offset in the partition
 * @param payload        the JSON payload, raw, or null
 * @param payloadBase64  a non-JSON payload in base64 (RFC 4648), or null
 * @param contentType    media type of a non-JSON or webhook payload, or null
 * @param headers        kept request headers (JSON object, raw), or null
 * @param traceId        trace id, or null
 * @param createdAt      when it was stored
 * @param attempts       the number of this delivery of the message to the consumer group (1 the
 *                       first time; a failed ack and an expired lease each end one)
 * @param leaseId        the lease it was delivered under: ack with it
 * @param leaseExpiresAt when the lease expires; unacked messages are then delivered again
 */
@RegisterForReflection
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PoppedMessage(UUID messageId, String transactionId, String queue, String partition, long offset,
                            @JsonRawValue @Schema(ref = "AnyJson") String payload, String payloadBase64, String contentType,
                            @JsonRawValue @Schema(ref = "AnyJson") String headers, String traceId, OffsetDateTime createdAt, int attempts,
                            UUID leaseId, OffsetDateTime leaseExpiresAt) {
}
