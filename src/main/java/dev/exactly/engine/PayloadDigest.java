package dev.exactly.engine;

import java.util.Arrays;

/**
 * The digest a duplicate's payload is compared by: the 16-byte XXH3-128 of the payload's exact
 * bytes (the push API's JSON text as sent, a webhook's raw body), in the same canonical big-endian
 * form as {@link TransactionHash} (xxHash specification, high 64 bits first). Stored with each
 * message (exactly.messages.payload_digest, sql/V15__payload_digests.sql).
 *
 * <p>Bytes are compared, not JSON values: the same object sent with other whitespace or member
 * order has another digest. XXH3 is fast and spreads accidental differences well, but it is not a
 * cryptographic hash: the comparison detects a client reusing an idempotency key for other
 * content by mistake, not a payload crafted to collide.
 */
public final class PayloadDigest {

    /** Length of a digest in bytes. */
    public static final int BYTES = 16;

    private PayloadDigest() {
    }

    /**
     * Digests a payload.
     *
     * @param payload the exact bytes to store, not null
     * @return a new 16-byte array: XXH3-128 of the bytes, high 64 bits first
     */
    public static byte[] of(byte[] payload) {
        return TransactionHash.xxh128(payload);
    }

    /**
     * Whether a duplicate's payload matched its original's.
     *
     * @param digest   the duplicate's digest ({@link #of})
     * @param original the original's stored digest, or null when it is not known (its data was
     *                 purged by retention, or it was stored before digests were kept)
     * @return true or false, or null (unknown) when {@code original} is null
     */
    public static Boolean matches(byte[] digest, byte[] original) {
        return original == null ? null : Arrays.equals(digest, original);
    }
}
