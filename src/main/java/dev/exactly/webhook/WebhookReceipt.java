package dev.exactly.webhook;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.exactly.engine.PushVerdict;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * The answer to an accepted delivery (new or duplicate), sent with HTTP 200.
 *
 * @param source        the source name
 * @param queue         the queue it went to
 * @param partition     the partition it went to
 * @param transactionId the deduplication key derived from the delivery
 * @param messageId     the stored message; for a duplicate the ORIGINAL delivery's message
 * @param verdict       "queued" (stored now) or "duplicate" (stored before, nothing written)
 * @param payloadMatches for a duplicate: whether its body's bytes equal the original delivery's;
 *                      absent when queued or not known (the original's data was purged)
 */
@RegisterForReflection
@JsonInclude(JsonInclude.Include.NON_NULL)
public record WebhookReceipt(String source, String queue, String partition, String transactionId, UUID messageId,
                             @Schema(enumeration = {"queued", "duplicate"}) String verdict,
                             Boolean payloadMatches) {

    /** The receipt of one pushed delivery. */
    static WebhookReceipt of(String source, PushVerdict v) {
        return new WebhookReceipt(source, v.queue(), v.partition(), v.transactionId(), v.messageId(), v.status().wire(),
                v.payloadMatches());
    }
}
