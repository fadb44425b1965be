package dev.exactly.webhook.signature;

import dev.exactly.webhook.Delivery;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The signature scheme Slack and Twitch share: a set of required headers, one of which carries
 * {@code <prefix> + hex(HMAC-SHA256(secret, signed text + body))}, where the signed text is built
 * from the other headers, with the secret's UTF-8 bytes as the key; then a signed timestamp checked
 * against the tolerance. The signature is checked before the timestamp, so a stale timestamp means
 * a genuine, old delivery. Subclasses give the signed text and read the timestamp.
 */
abstract class PrefixedHexHmac implements SignatureVerifier {

    private final List<String> required;
    private final String signature;
    private final String prefix;
    private final byte[] key;

    /**
     * @param required  the headers a delivery must carry, in the order the error names them
     * @param signature the header carrying the signature (one of {@code required})
     * @param prefix    what precedes the hex digest in it, e.g. {@code sha256=}
     * @param secret    the signing secret, used as text
     */
    PrefixedHexHmac(List<String> required, String signature, String prefix, String secret) {
        this.required = List.copyOf(required);
        this.signature = signature;
        this.prefix = prefix;
        this.key = secret.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public final void verify(Delivery delivery) {
        for (String h : required) {
            if (delivery.header(h) == null) {
                throw new InvalidSignature(listed(required) + " are required");
            }
        }
        String sig = delivery.header(signature);
        if (!sig.startsWith(prefix)) {
            throw new InvalidSignature(signature + " must be " + prefix + "<hex digest>");
        }
        byte[] expected = Hmac.sha256(key, signedText(delivery).getBytes(StandardCharsets.UTF_8), delivery.body());
        if (!Hmac.matches(expected, Hmac.fromHex(digest(sig.substring(prefix.length()))))) {
            throw new InvalidSignature(signature + " does not match the body");
        }
        checkTimestamp(delivery);
    }

    /**
     * @param delivery a delivery carrying every required header
     * @return the text signed before the body
     */
    abstract String signedText(Delivery delivery);

    /**
     * The hex digest as taken from the signature header after the prefix; as sent unless a
     * provider's own libraries trim it.
     */
    String digest(String afterPrefix) {
        return afterPrefix;
    }

    /**
     * @param delivery a delivery whose signature matched
     * @throws StaleTimestamp when its timestamp is malformed or outside the tolerance
     */
    abstract void checkTimestamp(Delivery delivery);

    /** "A and B", "A, B and C". */
    private static String listed(List<String> names) {
        int n = names.size();
        return n == 1 ? names.get(0) : String.join(", ", names.subList(0, n - 1)) + " and " + names.get(n - 1);
    }
}
