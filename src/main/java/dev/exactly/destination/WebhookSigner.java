package dev.exactly.destination;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Standard Webhooks signing, as a sender: the signature is {@code v1,} and the base64 HMAC-SHA256,
 * keyed with the secret's decoded bytes, of {@code <webhook-id>.<webhook-timestamp>.<body>} (the
 * body as sent, byte for byte).
 */
public final class WebhookSigner {

    private WebhookSigner() {
    }

    /**
     * @param key       the HMAC key (the secret after {@code whsec_}, base64-decoded)
     * @param id        the webhook-id header's value
     * @param timestamp the webhook-timestamp header's value, Unix seconds
     * @param body      the request body
     * @return the webhook-signature header's value
     */
    public static String sign(byte[] key, String id, long timestamp, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            mac.update((id + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8));
            return "v1," + Base64.getEncoder().encodeToString(mac.doFinal(body));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every Java runtime", e);
        }
    }
}
