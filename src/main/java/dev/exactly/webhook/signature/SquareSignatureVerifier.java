package dev.exactly.webhook.signature;

import dev.exactly.webhook.Delivery;
import java.nio.charset.StandardCharsets;

/**
 * Square's x-square-hmacsha256-signature: {@code base64(HMAC-SHA256(signature key, notification
 * URL + body))}, the subscription's signature key and its notification URL (exactly as entered at
 * Square) as UTF-8 text (Square Developer docs, "Verify and validate an event notification"; the
 * SDKs' WebhooksHelper). Square signs no timestamp.
 */
public final class SquareSignatureVerifier implements SignatureVerifier {

    /** The header Square signs with. */
    public static final String HEADER = "x-square-hmacsha256-signature";

    private final byte[] key;
    private final byte[] url;

    /**
     * @param signatureKey    the subscription's signature key
     * @param notificationUrl the subscription's notification URL, byte for byte as configured at Square
     */
    public SquareSignatureVerifier(String signatureKey, String notificationUrl) {
        this.key = signatureKey.getBytes(StandardCharsets.UTF_8);
        this.url = notificationUrl.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void verify(Delivery delivery) {
        String sig = delivery.header(HEADER);
        if (sig == null) {
            throw new InvalidSignature(HEADER + " is missing");
        }
        if (!Hmac.matches(Hmac.sha256(key, url, delivery.body()), Hmac.fromBase64(sig.trim()))) {
            throw new InvalidSignature(HEADER + " does not match the notification URL and body");
        }
    }

    @Override
    public String scheme() {
        return "square";
    }
}
