package dev.exactly.webhook.signature;

import dev.exactly.webhook.Delivery;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.List;

/**
 * Twitch EventSub's Twitch-Eventsub-Message-Signature: {@code "sha256=" + hex(HMAC-SHA256(secret,
 * message id + timestamp + body))}, the id and timestamp taken as sent in
 * Twitch-Eventsub-Message-Id and Twitch-Eventsub-Message-Timestamp (RFC 3339), the subscription's
 * secret as text (Twitch Developers, "Handling webhook events", verifying the event message). A
 * message older than the tolerance is refused (Twitch: 10 minutes); one ahead of now is not.
 */
public final class TwitchSignatureVerifier extends PrefixedHexHmac {

    /** The message id header (the same when Twitch resends a message). */
    public static final String ID = "Twitch-Eventsub-Message-Id";
    /** The send time header, RFC 3339 with up to nanoseconds. */
    public static final String TIMESTAMP = "Twitch-Eventsub-Message-Timestamp";
    /** The signature header. */
    public static final String SIGNATURE = "Twitch-Eventsub-Message-Signature";

    private final TimestampTolerance tolerance;

    /**
     * @param secret           the secret given when the subscription was created
     * @param toleranceSeconds largest allowed age of the timestamp, in seconds (Twitch: 600)
     * @param clock            the time source
     */
    public TwitchSignatureVerifier(String secret, long toleranceSeconds, Clock clock) {
        super(List.of(ID, TIMESTAMP, SIGNATURE), SIGNATURE, "sha256=", secret);
        this.tolerance = new TimestampTolerance(toleranceSeconds, TimestampTolerance.Direction.PAST_ONLY, clock);
    }

    @Override
    String signedText(Delivery delivery) {
        return delivery.header(ID) + delivery.header(TIMESTAMP);
    }

    @Override
    void checkTimestamp(Delivery delivery) {
        long millis;
        try {
            millis = OffsetDateTime.parse(delivery.header(TIMESTAMP)).toInstant().toEpochMilli();
        } catch (DateTimeParseException | ArithmeticException e) {
            throw new StaleTimestamp(TIMESTAMP + " must be an RFC 3339 date-time");
        }
        tolerance.check(millis, TIMESTAMP);
    }

    @Override
    public String scheme() {
        return "twitch";
    }
}
