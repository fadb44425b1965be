package dev.exactly.webhook.signature;

import java.time.Clock;

/**
 * Stripe's Stripe-Signature: {@code t=<unix seconds>,v1=<hex>[,v1=<hex>...]} where each v1 may be
 * {@code hex(HMAC-SHA256(secret, t + "." + body))} with the endpoint secret's UTF-8 bytes as the
 * key (Stripe Docs, "Verify webhook signatures manually"). One matching v1 suffices (several
 * appear while a secret is rolled); v0 and unknown schemes are ignored. A timestamp older than
 * the tolerance is refused, against replays of old deliveries; one ahead of now is accepted, as
 * Stripe's own libraries do (stripe-java's Webhook.Signature.verifyHeader checks the past only).
 */
public final class StripeSignatureVerifier extends TimestampedHmacList {

    /** The header Stripe signs with. */
    public static final String HEADER = "Stripe-Signature";

    /**
     * @param secret           the endpoint's signing secret (whsec_..., used as text)
     * @param toleranceSeconds largest allowed age of t, in seconds (Stripe's libraries use 300)
     * @param clock            the time source
     */
    public StripeSignatureVerifier(String secret, long toleranceSeconds, Clock clock) {
        super(new Format(HEADER, ",", "t", "v1", ".", HEADER + " timestamp"), secret, toleranceSeconds, clock);
    }

    @Override
    public String scheme() {
        return "stripe";
    }
}
