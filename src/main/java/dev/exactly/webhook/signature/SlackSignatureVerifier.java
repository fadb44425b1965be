package dev.exactly.webhook.signature;

import dev.exactly.webhook.Delivery;
import java.nio.charset.StandardCharsets;
import java.time.Clock;

/**
 * Slack's signed requests: X-Slack-Signature is {@code "v0=" + hex(HMAC-SHA256(signing secret,
 * "v0:" + X-Slack-Request-Timestamp + ":" + body))} with the app's signing secret as text (Slack
 * API docs, "Verifying requests from Slack"). The timestamp must be within the tolerance of now
 * either way, as Slack's SDKs check it (5 minutes).
 */
public final class SlackSignatureVerifier implements SignatureVerifier {

    /** The signature header. */
    public static final String SIGNATURE = "X-Slack-Signature";
    /** The signed timestamp header (Unix seconds). */
    public static final String TIMESTAMP = "X-Slack-Request-Timestamp";

    private static final String VERSION = "v0";

    private final byte[] key;
    private final TimestampTolerance tolerance;

    /**
     * @param secret           the app's signing secret
     * @param toleranceSeconds largest allowed |now - timestamp|, in seconds (Slack: 300)
     * @param clock            the time source
     */
    public SlackSignatureVerifier(String secret, long toleranceSeconds, Clock clock) {
        this.key = secret.getBytes(StandardCharsets.UTF_8);
        this.tolerance = new TimestampTolerance(toleranceSeconds, TimestampTolerance.Direction.BOTH, clock);
    }

    @Override
    public void verify(Delivery delivery) {
        String sig = delivery.header(SIGNATURE);
        String ts = delivery.header(TIMESTAMP);
        if (sig == null || ts == null) {
            throw new InvalidSignature(SIGNATURE + " and " + TIMESTAMP + " are required");
        }
        if (!sig.startsWith(VERSION + "=")) {
            throw new InvalidSignature(SIGNATURE + " must be v0=<hex digest>");
        }
        byte[] expected = Hmac.sha256(key, (VERSION + ":" + ts + ":").getBytes(StandardCharsets.UTF_8), delivery.body());
        if (!Hmac.matches(expected, Hmac.fromHex(sig.substring(VERSION.length() + 1).trim()))) {
            throw new InvalidSignature(SIGNATURE + " does not match the body");
        }
        tolerance.checkSeconds(ts, TIMESTAMP);
    }

    @Override
    public String scheme() {
        return "slack";
    }
}
