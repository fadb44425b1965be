package dev.exactly.webhook.signature;

import dev.exactly.webhook.Delivery;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * Paddle Billing's Paddle-Signature: {@code ts=<unix seconds>;h1=<hex>[;h1=<hex>...]}, each h1
 * possibly {@code hex(HMAC-SHA256(secret, ts + ":" + body))} with the notification destination's
 * secret key as text (Paddle Developer, "Verify webhook signatures"). One matching h1 suffices
 * (several appear while a secret is rotated). A ts older than the tolerance is refused; one ahead
 * of now is accepted, as Paddle's SDKs check the past only (their default tolerance is 5 s).
 */
public final class PaddleSignatureVerifier implements SignatureVerifier {

    /** The header Paddle signs with. */
    public static final String HEADER = "Paddle-Signature";

    private final byte[] key;
    private final TimestampTolerance tolerance;

    /**
     * @param secret           the notification destination's secret key (pdl_ntfset_..., used as text)
     * @param toleranceSeconds largest allowed age of ts, in seconds
     * @param clock            the time source
     */
    public PaddleSignatureVerifier(String secret, long toleranceSeconds, Clock clock) {
        this.key = secret.getBytes(StandardCharsets.UTF_8);
        this.tolerance = new TimestampTolerance(toleranceSeconds, TimestampTolerance.Direction.PAST_ONLY, clock);
    }

    @Override
    public void verify(Delivery delivery) {
        String header = delivery.header(HEADER);
        if (header == null) {
            throw new InvalidSignature(HEADER + " is missing");
        }
        String ts = null;
        List<String> h1 = new ArrayList<>(2);
        for (String element : header.split(";")) {
            int eq = element.indexOf('=');
            if (eq <= 0) {
                continue;
            }
            String name = element.substring(0, eq).trim();
            String value = element.substring(eq + 1).trim();
            if (name.equals("ts") && ts == null) {
                ts = value;
            } else if (name.equals("h1")) {
                h1.add(value);
            }
        }
        if (ts == null || h1.isEmpty()) {
            throw new InvalidSignature(HEADER + " must carry ts=<timestamp> and at least one h1=<signature>");
        }
        byte[] expected = Hmac.sha256(key, (ts + ":").getBytes(StandardCharsets.UTF_8), delivery.body());
        boolean ok = false;
        for (String candidate : h1) {
            ok |= Hmac.matches(expected, Hmac.fromHex(candidate));
        }
        if (!ok) {
            throw new InvalidSignature(HEADER + " does not match the body");
        }
        tolerance.checkSeconds(ts, HEADER + " ts");
    }

    @Override
    public String scheme() {
        return "paddle";
    }
}
