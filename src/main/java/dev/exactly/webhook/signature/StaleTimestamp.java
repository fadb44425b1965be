package dev.exactly.webhook.signature;

/**
 * A signed timestamp outside the scheme's tolerance (too old, or too far ahead where the scheme
 * refuses that too), or missing or malformed: answered 401 invalid-signature like any other bad
 * signature, and counted apart (reason timestamp).
 */
public final class StaleTimestamp extends InvalidSignature {

    /** @param detail what is wrong, naming the header or field and the tolerance */
    public StaleTimestamp(String detail) {
        super(detail);
    }
}
