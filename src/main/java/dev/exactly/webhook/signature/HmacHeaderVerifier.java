package dev.exactly.webhook.signature;

import dev.exactly.webhook.Delivery;
import java.nio.charset.StandardCharsets;

/**
 * A plain HMAC-SHA256 of the body in one header, optionally after a prefix, hex or base64
 * encoded, compared in constant time: the shape of Shopify's X-Shopify-Hmac-Sha256 (base64, no
 * prefix), Linear's Linear-Signature (hex) and of many others.
 */
public final class HmacHeaderVerifier implements SignatureVerifier {

    /** How the digest is written in the header. */
    public enum Encoding {
        /** Hexadecimal, either case. */
        HEX,
        /** Base64, RFC 4648 section 4. */
        BASE64
    }

    private final byte[] key;
    private final String header;
    private final String prefix;
    private final Encoding encoding;
    private final String scheme;

    /**
     * @param secret   the shared secret (its UTF-8 bytes are the key)
     * @param header   the header carrying the signature
     * @param prefix   text before the digest ("" for none)
     * @param encoding how the digest is encoded
     */
    public HmacHeaderVerifier(String secret, String header, String prefix, Encoding encoding) {
        this(secret, header, prefix, encoding, "hmac-sha256");
    }

    /**
     * @param secret   the shared secret (its UTF-8 bytes are the key)
     * @param header   the header carrying the signature
     * @param prefix   text before the digest ("" for none)
     * @param encoding how the digest is encoded
     * @param scheme   the scheme's configured name (e.g. shopify, hmac-sha256)
     */
    public HmacHeaderVerifier(String secret, String header, String prefix, Encoding encoding, String scheme) {
        this.key = secret.getBytes(StandardCharsets.UTF_8);
        this.header = header;
        this.prefix = prefix;
        this.encoding = encoding;
        this.scheme = scheme;
    }

    /**
     * Shopify's X-Shopify-Hmac-Sha256: base64 HMAC-SHA256 of the raw body under the app's client
     * secret (Shopify developer docs, "Deliver webhooks through HTTPS", verify the webhook).
     *
     * @param secret the app's client secret
     * @return the verifier
     */
    public static HmacHeaderVerifier shopify(String secret) {
        return new HmacHeaderVerifier(secret, "X-Shopify-Hmac-Sha256", "", Encoding.BASE64, "shopify");
    }

    /**
     * Linear's Linear-Signature: hex HMAC-SHA256 of the raw body under the webhook's signing
     * secret (Linear Developers, "Webhooks"). The body's timestamp is checked by
     * {@link LinearSignatureVerifier}.
     *
     * @param secret the webhook's signing secret
     * @return the verifier
     */
    static HmacHeaderVerifier linear(String secret) {
        return new HmacHeaderVerifier(secret, "Linear-Signature", "", Encoding.HEX, "linear");
    }

    @Override
    public void verify(Delivery delivery) {
        String sig = delivery.header(header);
        if (sig == null) {
            throw new InvalidSignature(header + " is missing");
        }
        if (!sig.startsWith(prefix)) {
            throw new InvalidSignature(header + " must start with " + prefix);
        }
        String digest = sig.substring(prefix.length()).trim();
        byte[] given = encoding == Encoding.HEX ? Hmac.fromHex(digest) : Hmac.fromBase64(digest);
        if (!Hmac.matches(Hmac.sha256(key, delivery.body()), given)) {
            throw new InvalidSignature(header + " does not match the body");
        }
    }

    @Override
    public String scheme() {
        return scheme;
    }
}
