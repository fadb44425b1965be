package dev.exactly.webhook.signature;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** HMAC-SHA256 (RFC 2104) and the constant-time comparison every verifier uses. */
final class Hmac {

    private static final String ALGORITHM = "HmacSHA256";

    private Hmac() {
    }

    /**
     * @param key   the HMAC key bytes
     * @param parts the message, as consecutive byte arrays
     * @return the 32-byte HMAC-SHA256 of the concatenated parts
     */
    static byte[] sha256(byte[] key, byte[]... parts) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(key, ALGORITHM));
            for (byte[] p : parts) {
                mac.update(p);
            }
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is unavailable", e);
        }
    }

    /** @return the bytes of a lower- or upper-case hex string, or null when it is not hex */
    static byte[] fromHex(String hex) {
        try {
            return HexFormat.of().parseHex(hex);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** @return the bytes of a base64 (RFC 4648 section 4) string, or null when it is not base64 */
    static byte[] fromBase64(String b64) {
        try {
            return Base64.getDecoder().decode(b64);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** Constant-time equality; a null {@code given} is never equal. */
    static boolean matches(byte[] expected, byte[] given) {
        return given != null && MessageDigest.isEqual(expected, given);
    }
}
