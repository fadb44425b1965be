package dev.exactly.webhook.signature;

import com.standardwebhooks.Webhook;
import com.standardwebhooks.exceptions.WebhookVerificationException;
import dev.exactly.webhook.Delivery;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Standard Webhooks v1 (webhook-id, webhook-timestamp, webhook-signature: space-separated
 * {@code v1,<base64 HMAC-SHA256(key, id + "." + timestamp + "." + body)>}), verified by the
 * reference library com.standardwebhooks (constant-time comparison, 300 s timestamp tolerance
 * in either direction, fixed by the library). The library verifies text: a body that is not
 * valid UTF-8 cannot be verified and is rejected.
 */
public final class StandardWebhooksVerifier implements SignatureVerifier {

    private final Webhook webhook;

    /**
     * @param secret whsec_ followed by the base64 key (as the Standard Webhooks spec prints it)
     * @throws IllegalArgumentException when the key is not base64
     */
    public StandardWebhooksVerifier(String secret) {
        this.webhook = new Webhook(secret);
    }

    @Override
    public void verify(Delivery delivery) {
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
            webhook.verify(body, delivery.headers());
        } catch (WebhookVerificationException e) {
            throw new InvalidSignature("webhook-signature: " + e.getMessage());
        } catch (RuntimeException e) {
            // the library throws unchecked exceptions for some malformed headers
            throw new InvalidSignature("webhook-signature headers are malformed");
        }
    }

    @Override
    public String scheme() {
        return "standard-webhooks";
    }
}
