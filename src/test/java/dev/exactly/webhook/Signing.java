package dev.exactly.webhook;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Test-side signers, written from each provider's documentation (not from the code under test):
 * GitHub Docs "Validating webhook deliveries", Stripe Docs "Verify webhook signatures manually",
 * the Standard Webhooks specification (v1 symmetric signatures).
 */
public final class Signing {

    private Signing() {
    }

    /** HMAC-SHA256 of {@code message} under {@code key}. */
    public static byte[] hmacSha256(byte[] key, byte[] message) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(message);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** X-Hub-Signature-256: "sha256=" + hex HMAC-SHA256(secret, body). */
    public static String github(String secret, byte[] body) {
        return "sha256=" + HexFormat.of().formatHex(hmacSha256(secret.getBytes(StandardCharsets.UTF_8), body));
    }

    /** Stripe-Signature: "t=" + t + ",v1=" + hex HMAC-SHA256(secret, t + "." + body). */
    public static String stripe(String secret, long t, byte[] body) {
        return "t=" + t + ",v1=" + stripeV1(secret, t, body);
    }

    /** The v1 part of a Stripe signature. */
    public static String stripeV1(String secret, long t, byte[] body) {
        byte[] prefix = (t + ".").getBytes(StandardCharsets.UTF_8);
        byte[] signed = new byte[prefix.length + body.length];
        System.arraycopy(prefix, 0, signed, 0, prefix.length);
        System.arraycopy(body, 0, signed, prefix.length, body.length);
        return HexFormat.of().formatHex(hmacSha256(secret.getBytes(StandardCharsets.UTF_8), signed));
    }

    /**
     * Standard Webhooks webhook-signature: "v1," + base64 HMAC-SHA256(base64-decoded key after
     * "whsec_", id + "." + timestamp + "." + body).
     */
    public static String standardWebhooks(String secret, String id, long timestamp, byte[] body) {
        byte[] key = Base64.getDecoder().decode(secret.substring("whsec_".length()));
        byte[] prefix = (id + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8);
        byte[] signed = new byte[prefix.length + body.length];
        System.arraycopy(prefix, 0, signed, 0, prefix.length);
        System.arraycopy(body, 0, signed, prefix.length, body.length);
        return "v1," + Base64.getEncoder().encodeToString(hmacSha256(key, signed));
    }

    /** A plain base64 HMAC-SHA256 of the body (Shopify's X-Shopify-Hmac-Sha256 shape). */
    public static String hmacBase64(String secret, byte[] body) {
        return Base64.getEncoder().encodeToString(hmacSha256(secret.getBytes(StandardCharsets.UTF_8), body));
    }

    /** UTF-8 bytes. */
    public static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
