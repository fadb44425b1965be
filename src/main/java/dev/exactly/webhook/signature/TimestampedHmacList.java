package dev.exactly.webhook.signature;

import dev.exactly.webhook.Delivery;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * The signature scheme Stripe and Paddle share: one header holding a timestamp and one or more
 * signatures as {@code name=value} elements, each signature possibly
 * {@code hex(HMAC-SHA256(secret, timestamp + joiner + body))} with the secret's UTF-8 bytes as
 * the key. One matching signature suffices (several appear while a secret is rolled); other
 * element names are ignored. The signature is checked first, then the timestamp's age (past only,
 * as both providers' libraries do): a stale timestamp then means a genuine, old delivery.
 */
abstract class TimestampedHmacList implements SignatureVerifier {

    /**
     * How one provider spells the scheme.
     *
     * @param header         the header name
     * @param separator      the element separator (a regular expression)
     * @param timestamp      the timestamp element's name
     * @param signature      the signature elements' name
     * @param joiner         what joins the timestamp and the body in the signed bytes
     * @param timestampLabel how a refused timestamp is named in the error
     */
    record Format(String header, String separator, String timestamp, String signature, String joiner,
                  String timestampLabel) {
    }

    private final Format format;
    private final byte[] key;
    private final TimestampTolerance tolerance;

    /**
     * @param format           the provider's spelling
     * @param secret           the signing secret, used as text
     * @param toleranceSeconds largest allowed age of the timestamp, in seconds
     * @param clock            the time source
     */
    TimestampedHmacList(Format format, String secret, long toleranceSeconds, Clock clock) {
        this.format = format;
        this.key = secret.getBytes(StandardCharsets.UTF_8);
        this.tolerance = new TimestampTolerance(toleranceSeconds, TimestampTolerance.Direction.PAST_ONLY, clock);
    }

    @Override
    public final void verify(Delivery delivery) {
        String header = delivery.header(format.header());
        if (header == null) {
            throw new InvalidSignature(format.header() + " is missing");
        }
        String timestamp = null;
        List<String> signatures = new ArrayList<>(2);
        for (String element : header.split(format.separator())) {
            int eq = element.indexOf('=');
            if (eq <= 0) {
                continue;
            }
            String name = element.substring(0, eq).trim();
            String value = element.substring(eq + 1).trim();
            if (name.equals(format.timestamp()) && timestamp == null) {
                timestamp = value;
            } else if (name.equals(format.signature())) {
                signatures.add(value);
            }
        }
        if (timestamp == null || signatures.isEmpty()) {
            throw new InvalidSignature(format.header() + " must carry " + format.timestamp()
                    + "=<timestamp> and at least one " + format.signature() + "=<signature>");
        }
        byte[] expected = Hmac.sha256(key, (timestamp + format.joiner()).getBytes(StandardCharsets.UTF_8),
                delivery.body());
        boolean ok = false;
        for (String candidate : signatures) {
            ok |= Hmac.matches(expected, Hmac.fromHex(candidate));
        }
        if (!ok) {
            throw new InvalidSignature(format.header() + " does not match the body");
        }
        tolerance.checkSeconds(timestamp, format.timestampLabel());
    }
}
