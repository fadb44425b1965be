package dev.exactly.webhook.signature;

import com.standardwebhooks.Webhook;
import com.standardwebhooks.exceptions.WebhookVerificationException;
import dev.exactly.webhook.Delivery;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Standard Webhooks v1 (webhook-id, webhook-timestamp, webhook-signature: space-separated
 * {@code v1,<base64 HMAC-SHA256(key, id + "." + timestamp + "." + body)>}), verified by the
 * reference library com.standardwebhooks (constant-time comparison). Svix's header names
 * svix-id, svix-timestamp and svix-signature are accepted as aliases when the webhook-* ones are
 * absent, as Svix's own libraries accept both. The timestamp must be within 300 s of now in
 * either direction (the specification's rule, fixed by the library); it is checked first against
 * this verifier's clock so that a stale delivery is told apart from a forged one. The library
 * verifies text: a body that is not valid UTF-8 cannot be verified and is rejected.
 */
public final class StandardWebhooksVerifier implements SignatureVerifier {

    /** The specification's timestamp tolerance, in seconds. */
    public static final long TOLERANCE_SECONDS = 300;

    private static final String[] NAMES = {"id", "timestamp", "signature"};

    private final Webhook webhook;
    private final TimestampTolerance tolerance;

    /**
     * @param secret whsec_ followed by the base64 key (as the Standard Webhooks spec prints it)
     * @param clock  the time source of the timestamp check
     * @throws IllegalArgumentException when the key is not base64
     */
    public StandardWebhooksVerifier(String secret, Clock clock) {
        this.webhook = new Webhook(secret);
        this.tolerance = new TimestampTolerance(TOLERANCE_SECONDS, TimestampTolerance.Direction.BOTH, clock);
    }

    /** With the system clock. */
    public StandardWebhooksVerifier(String secret) {
        this(secret, Clock.systemUTC());
    }

    @Override
    public void verify(Delivery delivery) {
        Map<String, List<String>> headers = unbranded(delivery);
        String ts = first(headers, "webhook-timestamp");
        if (ts == null || first(headers, "webhook-id") == null || first(headers, "webhook-signature") == null) {
            throw new InvalidSignature("webhook-id, webhook-timestamp and webhook-signature (or svix-id, "
                    + "svix-timestamp and svix-signature) are required");
        }
        tolerance.checkSeconds(ts, "webhook-timestamp");
        String body;
        try {
            body = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(delivery.body())).toString();
        } catch (CharacterCodingException e) {
            throw new InvalidSignature("the body is not valid UTF-8, so its webhook-signature cannot be verified");
        }
        try {
            webhook.verify(body, headers);
        } catch (WebhookVerificationException e) {
            throw new InvalidSignature("webhook-signature: " + e.getMessage());
        } catch (RuntimeException e) {
            // the library throws unchecked exceptions for some malformed headers
            throw new InvalidSignature("webhook-signature headers are malformed");
        }
    }

    /** The webhook-* headers, or the svix-* ones under webhook-* names when no webhook-id is sent. */
    private static Map<String, List<String>> unbranded(Delivery d) {
        if (d.header("webhook-id") != null || d.header("svix-id") == null) {
            return d.headers();
        }
        Map<String, List<String>> m = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        for (String n : NAMES) {
            List<String> v = d.headers().get("svix-" + n);
            if (v != null) {
                m.put("webhook-" + n, v);
            }
        }
        return m;
    }

    private static String first(Map<String, List<String>> h, String name) {
        List<String> v = h.get(name);
        return v == null || v.isEmpty() ? null : v.get(0);
    }

    @Override
    public String scheme() {
        return "standard-webhooks";
    }
}
