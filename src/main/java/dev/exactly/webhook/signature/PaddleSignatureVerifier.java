package dev.exactly.webhook.signature;

import java.time.Clock;

/**
 * Paddle Billing's Paddle-Signature: {@code ts=<unix seconds>;h1=<hex>[;h1=<hex>...]}, each h1
 * possibly {@code hex(HMAC-SHA256(secret, ts + ":" + body))} with the notification destination's
 * secret key as text (Paddle Developer, "Verify webhook signatures"). One matching h1 suffices
 * (several appear while a secret is rotated). A ts older than the tolerance is refused; one ahead
 * of now is accepted, as Paddle's SDKs check the past only (their default tolerance is 5 s).
 */
public final class PaddleSignatureVerifier extends TimestampedHmacList {

    /** The header Paddle signs with. */
    public static final String HEADER = "Paddle-Signature";

    /**
     * @param secret           the notification destination's secret key (pdl_ntfset_..., used as text)
     * @param toleranceSeconds largest allowed age of ts, in seconds
     * @param clock            the time source
     */
    public PaddleSignatureVerifier(String secret, long toleranceSeconds, Clock clock) {
        super(new Format(HEADER, ";", "ts", "h1", ":", HEADER + " ts"), secret, toleranceSeconds, clock);
    }

    @Override
    public String scheme() {
        return "paddle";
    }
}
