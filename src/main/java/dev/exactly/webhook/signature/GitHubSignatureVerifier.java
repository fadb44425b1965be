package dev.exactly.webhook.signature;

import dev.exactly.webhook.Delivery;
import java.nio.charset.StandardCharsets;

/**
 * GitHub's X-Hub-Signature-256: {@code "sha256=" + hex(HMAC-SHA256(secret, body))}, the secret's
 * UTF-8 bytes as the key (GitHub Docs, "Validating webhook deliveries").
 */
public final class GitHubSignatureVerifier implements SignatureVerifier {

    /** The header GitHub signs with. */
    public static final String HEADER = "X-Hub-Signature-256";

    private static final String PREFIX = "sha256=";

    private final byte[] key;

    /** @param secret the webhook's secret as entered in GitHub */
    public GitHubSignatureVerifier(String secret) {
        this.key = secret.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void verify(Delivery delivery) {
        String sig = delivery.header(HEADER);
        if (sig == null) {
            throw new InvalidSignature(HEADER + " is missing");
        }
        if (!sig.startsWith(PREFIX)) {
            throw new InvalidSignature(HEADER + " must be sha256=<hex digest>");
        }
        if (!Hmac.matches(Hmac.sha256(key, delivery.body()), Hmac.fromHex(sig.substring(PREFIX.length())))) {
            throw new InvalidSignature(HEADER + " does not match the body");
        }
    }

    @Override
    public String scheme() {
        return "github";
    }
}
