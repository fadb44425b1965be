package dev.exactly.webhook.signature;

import dev.exactly.webhook.Delivery;

/** Accepts every delivery: for sources explicitly configured with signature=none (e.g. behind a trusted gateway). */
public final class NoSignature implements SignatureVerifier {

    @Override
    public void verify(Delivery delivery) {
        // explicitly unauthenticated
    }

    @Override
    public String scheme() {
        return "none";
    }
}
