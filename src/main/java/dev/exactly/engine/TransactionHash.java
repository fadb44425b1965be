package dev.exactly.engine;

import java.nio.charset.StandardCharsets;
import net.openhft.hashing.LongTupleHashFunction;

/**
 * The identity that deduplication compares: the 16-byte XXH3-128 hash of a transactionId's
 * UTF-8 bytes, in the canonical big-endian form of the xxHash specification (high 64 bits first).
 *
 * <p>TransactionIds are compared byte for byte: no Unicode normalisation is applied, so two ids
 * that render alike but differ in code points are different ids.
 */
public final class TransactionHash {

    /** Length of a hash in bytes. */
    public static final int BYTES = 16;

    private static final LongTupleHashFunction XXH3_128 = LongTupleHashFunction.xx128();

    private TransactionHash() {
    }

    /**
     * Hashes a transactionId.
     *
     * @param transactionId the id, not null
     * @return a new 16-byte array: XXH3-128 of the UTF-8 bytes, high 64 bits first
     */
    public static byte[] of(String transactionId) {
        return xxh128(transactionId.getBytes(StandardCharsets.UTF_8));
    }

    /** XXH3-128 of bytes as 16 bytes, high 64 bits first (also the payload digest's form). */
    static byte[] xxh128(byte[] bytes) {
        long[] h = XXH3_128.hashBytes(bytes);
        byte[] out = new byte[BYTES];
        putLong(out, 0, h[1]);
        putLong(out, 8, h[0]);
        return out;
    }

    private static void putLong(byte[] b, int at, long v) {
        for (int i = 7; i >= 0; i--) {
            b[at + i] = (byte) v;
            v >>>= 8;
        }
    }
}
