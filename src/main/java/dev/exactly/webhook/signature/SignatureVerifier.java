package dev.exactly.webhook.signature;

import dev.exactly.webhook.Delivery;

/**
 * Checks that a delivery was signed by the holder of the source's secret. Implementations
 * compare digests in constant time ({@link java.security.MessageDigest#isEqual}). Thread-safe.
 */
public interface SignatureVerifier {

    /**
     * @param delivery the delivery, with its exact body bytes
     * @throws InvalidSignature (401) when the signature is missing, malformed, stale or does not match
     */
    void verify(Delivery delivery);

    /** The scheme's name as configured (github, stripe, standard-webhooks, hmac-sha256, none). */
    String scheme();
}
