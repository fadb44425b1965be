package dev.exactly.webhook.signature;

import dev.exactly.webhook.Delivery;
import java.time.Clock;
import java.util.List;

/**
 * Slack's signed requests: X-Slack-Signature is {@code "v0=" + hex(HMAC-SHA256(signing secret,
 * "v0:" + X-Slack-Request-Timestamp + ":" + body))} with the app's signing secret as text (Slack
 * API docs, "Verifying requests from Slack"). The timestamp must be within the tolerance of now
 * either way, as Slack's SDKs check it (5 minutes).
 */
public final class SlackSignatureVerifier extends PrefixedHexHmac {

    /** The signature header. */
    public static final String SIGNATURE = "X-Slack-Signature";
    /** The signed timestamp header (Unix seconds). */
    public static final String TIMESTAMP = "X-Slack-Request-Timestamp";

    private static final String VERSION = "v0";

    private final TimestampTolerance tolerance;

    /**
     * @param secret           the app's signing secret
     * @param toleranceSeconds largest allowed |now - timestamp|, in seconds (Slack: 300)
     * @param clock            the time source
     */
    public SlackSignatureVerifier(String secret, long toleranceSeconds, Clock clock) {
        super(List.of(SIGNATURE, TIMESTAMP), SIGNATURE, VERSION + "=", secret);
        this.tolerance = new TimestampTolerance(toleranceSeconds, TimestampTolerance.Direction.BOTH, clock);
    }

    @Override
    String signedText(Delivery delivery) {
        return VERSION + ":" + delivery.header(TIMESTAMP) + ":";
    }

    @Override
    String digest(String afterPrefix) {
        return afterPrefix.trim();
    }

    @Override
    void checkTimestamp(Delivery delivery) {
        tolerance.checkSeconds(delivery.header(TIMESTAMP), TIMESTAMP);
    }

    @Override
    public String scheme() {
        return "slack";
    }
}
