package dev.exactly.webhook.signature;

import static dev.exactly.webhook.Signing.utf8;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.exactly.webhook.Deliveries;
import dev.exactly.webhook.Signing;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class HmacHeaderVerifierTest {

    private static final byte[] BODY = utf8("{\"id\":820982911946154508,\"email\":\"jon@example.com\"}");

    @Test
    void base64WithoutPrefixAsShopifySigns() {
        HmacHeaderVerifier v = new HmacHeaderVerifier("shpss_secret", "X-Shopify-Hmac-Sha256", "",
                HmacHeaderVerifier.Encoding.BASE64);
        assertDoesNotThrow(() -> v.verify(Deliveries.of(BODY, "X-Shopify-Hmac-Sha256", Signing.hmacBase64("shpss_secret", BODY))));
        assertThrows(InvalidSignature.class, () -> v.verify(Deliveries.of(utf8("{}"), "X-Shopify-Hmac-Sha256",
                Signing.hmacBase64("shpss_secret", BODY))));
        assertThrows(InvalidSignature.class, () -> v.verify(Deliveries.of(BODY, "X-Shopify-Hmac-Sha256", "not base64!")));
        assertThrows(InvalidSignature.class, () -> v.verify(Deliveries.of(BODY)));
    }

    @Test
    void hexWithPrefix() {
        HmacHeaderVerifier v = new HmacHeaderVerifier("s3cret", "X-Signature", "sha256=", HmacHeaderVerifier.Encoding.HEX);
        String hex = HexFormat.of().formatHex(Signing.hmacSha256(utf8("s3cret"), BODY));
        assertDoesNotThrow(() -> v.verify(Deliveries.of(BODY, "X-Signature", "sha256=" + hex)));
        assertThrows(InvalidSignature.class, () -> v.verify(Deliveries.of(BODY, "X-Signature", hex)));
    }
}
