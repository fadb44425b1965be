package dev.exactly.webhook.signature;

import static dev.exactly.webhook.Signing.utf8;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.exactly.webhook.Deliveries;
import dev.exactly.webhook.Signing;
import org.junit.jupiter.api.Test;

/** Shopify's X-Shopify-Hmac-Sha256: base64 HMAC-SHA256 of the raw body under the app's client secret. */
class ShopifySignatureTest {

    private final HmacHeaderVerifier verifier = HmacHeaderVerifier.shopify("shpss_client_secret");
    private static final byte[] BODY = utf8("{\"id\":820982911946154508,\"email\":\"jon@example.com\"}");

    @Test
    void acceptsTheBase64DigestAndRefusesHexOrTampering() {
        String sig = Signing.hmacBase64("shpss_client_secret", BODY);
        assertDoesNotThrow(() -> verifier.verify(Deliveries.of(BODY, "X-Shopify-Hmac-Sha256", sig)));
        assertThrows(InvalidSignature.class, () -> verifier.verify(Deliveries.of(utf8("{\"id\":1}"),
                "X-Shopify-Hmac-Sha256", sig)));
        assertThrows(InvalidSignature.class, () -> verifier.verify(Deliveries.of(BODY, "X-Shopify-Hmac-Sha256",
                java.util.HexFormat.of().formatHex(java.util.Base64.getDecoder().decode(sig)))));
        assertThrows(InvalidSignature.class, () -> verifier.verify(Deliveries.of(BODY)));
        assertEquals("shopify", verifier.scheme());
    }
}
