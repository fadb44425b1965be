package dev.exactly.webhook.signature;

import dev.exactly.webhook.Delivery;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * Stripe's Stripe-Signature: {@code t=<unix seconds>,v1=<hex>[,v1=<hex>...]} where each v1 may be
 * {@code hex(HMAC-SHA256(secret, t + "." + body))} with the endpoint secret's UTF-8 bytes as the
 * key (Stripe Docs, "Verify webhook signatures manually"). One matching v1 suffices (several
 * appear while a secret is rolled); v0 and unknown schemes are ignored. A timestamp older than
 * the tolerance is refused, against replays of old deliveries; one ahead of now is accepted, as
 * Stripe's own libraries do (stripe-java's Webhook.Signature.verifyHeader checks the past only).
 */
public final class StripeSignatureVerifier implements SignatureVerifier {

    /** The header Stripe signs with. */
    public static final String HEADER = "Stripe-Signature";

    private final byte[] key;
    private final TimestampTolerance tolerance;

    /**
     * @param secret           the endpoint's signing secret (whsec_..., used as text)
     * @param toleranceSeconds largest allowed age of t, in seconds (Stripe's libraries use 300)
     * @param clock            the time source
     */
    public StripeSignatureVerifier(String secret, long toleranceSeconds, Clock clock) {
        this.key = secret.getBytes(StandardCharsets.UTF_8);
        this.tolerance = new TimestampTolerance(toleranceSeconds, TimestampTolerance.Direction.PAST_ONLY, clock);
    }

    @Override
    public void verify(Delivery delivery) {
        String header = delivery.header(HEADER);
        if (header == null) {
            throw new InvalidSignature(HEADER + " is missing");
        }
        String t = null;
        List<String> v1 = new ArrayList<>(2);
        for (String element : header.split(",")) {
            int eq = element.indexOf('=');
            if (eq <= 0) {
                continue;
            }
            String name = element.substring(0, eq).trim();
            String value = element.substring(eq + 1).trim();
            if (name.equals("t") && t == null) {
                t = value;
            } else if (name.equals("v1")) {
                v1.add(value);
            }
        }
        if (t == null || v1.isEmpty()) {
            throw new InvalidSignature(HEADER + " must carry t=<timestamp> and at least one v1=<signature>");
        }
        byte[] expected = Hmac.sha256(key, (t + ".").getBytes(StandardCharsets.US_ASCII), delivery.body());
        boolean ok = false;
        for (String candidate : v1) {
            ok |= Hmac.matches(expected, Hmac.fromHex(candidate));
        }
        if (!ok) {
            throw new InvalidSignature(HEADER + " does not match the body");
        }
        // after the signature, as stripe-java: a stale timestamp then means a genuine, old delivery
        tolerance.checkSeconds(t, HEADER + " timestamp");
    }

    @Override
    public String scheme() {
        return "stripe";
    }
}
