package dev.exactly.consume;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonRawValue;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * A message delivered by pop. A JSON payload is returned as JSON, byte for byte as pushed; any
 * other payload (a webhook body of another media type) as base64 in payloadBase64.
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
 * @param attempts       failed/retry acks of it so far in this consumer group
 * @param leaseId        the lease it was delivered under: ack with it
 * @param leaseExpiresAt when the lease expires; unacked messages are then delivered again
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PoppedMessage(UUID messageId, String transactionId, String queue, String partition, long offset,
                            @JsonRawValue @Schema(ref = "AnyJson") String payload, String payloadBase64, String contentType,
                            @JsonRawValue @Schema(ref = "AnyJson") String headers, String traceId, OffsetDateTime createdAt, int attempts,
                            UUID leaseId, OffsetDateTime leaseExpiresAt) {
}
