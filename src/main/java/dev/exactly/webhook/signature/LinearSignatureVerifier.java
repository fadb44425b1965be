package dev.exactly.webhook.signature;

import com.fasterxml.jackson.databind.JsonNode;
import dev.exactly.problem.ApiProblem;
import dev.exactly.webhook.Delivery;
import java.time.Clock;

/**
 * Linear's webhooks: Linear-Signature is the hex HMAC-SHA256 of the raw body under the signing
 * secret, and the body's {@code webhookTimestamp} (Unix milliseconds) must be within the tolerance
 * of now either way, as Linear's SDK checks it (one minute) (Linear Developers, "Webhooks",
 * securing webhooks).
 */
public final class LinearSignatureVerifier implements SignatureVerifier {

    /** The JSON Pointer of the signed send time, in milliseconds. */
    public static final String TIMESTAMP = "/webhookTimestamp";

    private final HmacHeaderVerifier signature;
    private final TimestampTolerance tolerance;

    /**
     * @param secret           the webhook's signing secret
     * @param toleranceSeconds largest allowed |now - webhookTimestamp|, in seconds (Linear: 60)
     * @param clock            the time source
     */
    public LinearSignatureVerifier(String secret, long toleranceSeconds, Clock clock) {
        this.signature = HmacHeaderVerifier.linear(secret);
        this.tolerance = new TimestampTolerance(toleranceSeconds, TimestampTolerance.Direction.BOTH, clock);
    }

    @Override
    public void verify(Delivery delivery) {
        signature.verify(delivery);
        JsonNode ts;
        try {
            ts = delivery.json("Linear's webhookTimestamp").at(TIMESTAMP);
        } catch (ApiProblem notJson) {
            throw new StaleTimestamp("the body must be JSON carrying webhookTimestamp");
        }
        if (!ts.isIntegralNumber() || !ts.canConvertToLong()) {
            throw new StaleTimestamp("webhookTimestamp must be Unix milliseconds");
        }
        tolerance.check(ts.longValue(), "webhookTimestamp");
    }

    @Override
    public String scheme() {
        return "linear";
    }
}
