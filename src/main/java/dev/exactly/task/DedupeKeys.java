package dev.exactly.task;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import org.erdtman.jcs.JsonCanonicalizer;

/**
 * The autoDedupe key of a task: SHA-256 (FIPS 180-4) over its type and its data in RFC 8785
 * canonical JSON (JCS), each framed by its length so no two (type, data) pairs share an input:
 *
 * <pre>
 *   key = SHA-256( be32(len(T)) || T || be32(len(D)) || D )
 *   T   = the type, UTF-8
 *   D   = JCS(data), UTF-8 (RFC 8785: object members sorted by UTF-16 code units, no
 *         insignificant whitespace, numbers as IEEE 754 doubles in ECMAScript form, minimal
 *         string escapes)
 *   be32(n) = n as 4 bytes, big-endian
 * </pre>
 *
 * Key order and whitespace therefore do not matter, numbers compare by value (1, 1.0 and 1e0
 * are one number; integers beyond 2^53 are rounded to a double, as RFC 8785 prescribes), array
 * order does. The task id, queue and scheduling fields are not part of the key (the queue
 * scopes it: the unique index is on (queue, key)). Canonicalisation uses
 * io.github.erdtman:java-json-canonicalization.
 */
public final class DedupeKeys {

    /** Length of a key in bytes. */
    public static final int KEY_BYTES = 32;

    private DedupeKeys() {
    }

    /**
     * The RFC 8785 canonical form of one JSON value (any value, scalars included).
     *
     * @param json the value's UTF-8 JSON text, already known to be well-formed JSON with unique
     *             member names
     * @return the canonical UTF-8 bytes
     * @throws IOException saying, in the API's words, why the value has no canonical form: a number
     *                     outside the IEEE 754 double range (RFC 8785, section 3.2.2.3), a string with a
     *                     lone surrogate (RFC 8785 takes I-JSON, RFC 7493), or what the library refused
     */
    public static byte[] canonical(byte[] json) throws IOException {
        // The library takes an object or an array at the top; a one-element array's canonical
        // form is exactly "[" + JCS(value) + "]", so the brackets are stripped again.
        byte[] wrapped = new byte[json.length + 2];
        wrapped[0] = '[';
        System.arraycopy(json, 0, wrapped, 1, json.length);
        wrapped[wrapped.length - 1] = ']';
        String c;
        try {
            c = new JsonCanonicalizer(wrapped).getEncodedString();
        } catch (IOException e) { // the library's one refusal, worded "NaN/Infinity not permitted"
            throw new IOException("every number must fit an IEEE 754 double (magnitude below about 1.8e308), "
                    + "as RFC 8785's canonical form needs", e);
        } catch (RuntimeException e) {
            throw new IOException("must have an RFC 8785 canonical form: " + e.getMessage(), e);
        }
        for (int i = 0; i < c.length(); i++) {
            if (Character.isHighSurrogate(c.charAt(i)) && i + 1 < c.length() && Character.isLowSurrogate(c.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c.charAt(i))) {
                throw new IOException("strings must be well-formed Unicode (no lone surrogate escapes; RFC 8785 needs I-JSON)");
            }
        }
        byte[] utf8 = c.getBytes(StandardCharsets.UTF_8);
        return Arrays.copyOfRange(utf8, 1, utf8.length - 1);
    }

    /**
     * The autoDedupe key.
     *
     * @param type          the task type
     * @param canonicalData {@link #canonical(byte[])} of the task's data
     * @return 32 bytes
     */
    public static byte[] key(String type, byte[] canonicalData) {
        return framedSha256(type, canonicalData);
    }

    /**
     * The payload digest of a task, kept to tell a repeated task id with the same type and data
     * from one with other content ({@code payloadMatches}): the same framing as {@link #key}, over
     * the data's bytes exactly as sent (not canonicalised: it is computed for every task, and any
     * JSON value is accepted, numbers beyond the double range included).
     *
     * <pre>
     *   digest = SHA-256( be32(len(T)) || T || be32(len(D)) || D ),  D = the data's UTF-8 bytes as sent
     * </pre>
     *
     * @param type the task type
     * @param data the task's data as sent
     * @return 32 bytes
     */
    public static byte[] payloadDigest(String type, byte[] data) {
        return framedSha256(type, data);
    }

    private static byte[] framedSha256(String type, byte[] canonicalData) {
        byte[] t = type.getBytes(StandardCharsets.UTF_8);
        MessageDigest sha = sha256();
        sha.update(ByteBuffer.allocate(4).putInt(t.length).array());
        sha.update(t);
        sha.update(ByteBuffer.allocate(4).putInt(canonicalData.length).array());
        sha.update(canonicalData);
        return sha.digest();
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
