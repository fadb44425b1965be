package dev.exactly.webhook;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Test-side signers, written from each provider's documentation (not from the code under test):
 * GitHub Docs "Validating webhook deliveries", Stripe Docs "Verify webhook signatures manually",
 * the Standard Webhooks specification (v1 symmetric signatures), Slack "Verifying requests from
 * Slack", Twitch "Handling webhook events", Paddle "Verify webhook signatures", Square "Verify and
 * validate an event notification", Linear "Webhooks".
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

    /** The concatenation of a text prefix (UTF-8) and the body. */
    public static byte[] concat(String prefix, byte[] body) {
        byte[] p = utf8(prefix);
        byte[] out = new byte[p.length + body.length];
        System.arraycopy(p, 0, out, 0, p.length);
        System.arraycopy(body, 0, out, p.length, body.length);
        return out;
    }

    private static String hexHmac(String secret, byte[] message) {
        return HexFormat.of().formatHex(hmacSha256(utf8(secret), message));
    }

    /** X-Slack-Signature: "v0=" + hex HMAC-SHA256(secret, "v0:" + ts + ":" + body). */
    public static String slack(String secret, long ts, byte[] body) {
        return "v0=" + hexHmac(secret, concat("v0:" + ts + ":", body));
    }

    /** Twitch-Eventsub-Message-Signature: "sha256=" + hex HMAC-SHA256(secret, id + timestamp + body). */
    public static String twitch(String secret, String id, String timestamp, byte[] body) {
        return "sha256=" + hexHmac(secret, concat(id + timestamp, body));
    }

    /** Paddle-Signature: "ts=" + ts + ";h1=" + hex HMAC-SHA256(secret, ts + ":" + body). */
    public static String paddle(String secret, long ts, byte[] body) {
        return "ts=" + ts + ";h1=" + hexHmac(secret, concat(ts + ":", body));
    }

    /** x-square-hmacsha256-signature: base64 HMAC-SHA256(key, notification URL + body). */
    public static String square(String key, String url, byte[] body) {
        return Base64.getEncoder().encodeToString(hmacSha256(utf8(key), concat(url, body)));
    }

    /** Linear-Signature: hex HMAC-SHA256(secret, body). */
    public static String linear(String secret, byte[] body) {
        return hexHmac(secret, body);
    }

    /** UTF-8 bytes. */
    public static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
