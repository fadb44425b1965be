package dev.exactly.webhook.signature;

import static dev.exactly.webhook.Signing.utf8;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.exactly.webhook.Deliveries;
import dev.exactly.webhook.Signing;
import org.junit.jupiter.api.Test;

/** Against the test vector of Square's SDKs (WebhooksHelper: body, signature key, notification URL, signature). */
class SquareSignatureVerifierTest {

    private static final String KEY = "Ibxx_5AKakO-3qeNVR61Dw";
    private static final String URL = "https://webhook.site/679a4f3a-dcfa-49ee-bac5-9d0edad886b9";
    private static final byte[] BODY = utf8("{\"merchant_id\":\"MLEFBHHSJGVHD\",\"type\":\"webhooks.test_notification\","
            + "\"event_id\":\"ac3ac95b-f97d-458c-a6e6-18981597e05f\",\"created_at\":\"2022-07-13T20:30:59.037339943Z\","
            + "\"data\":{\"type\":\"webhooks\",\"id\":\"bc368e64-01aa-407e-b46e-3231809b1129\"}}");
    private static final String SIGNATURE = "GF4YkrJgGBDZ9NIYbNXBnMzqb2HoL4RW/S6vkZ9/2N4=";

    private static void verify(SquareSignatureVerifier v, byte[] body, String sig) {
        v.verify(Deliveries.of(body, "x-square-hmacsha256-signature", sig));
    }

    @Test
    void acceptsSquaresVector() {
        assertDoesNotThrow(() -> verify(new SquareSignatureVerifier(KEY, URL), BODY, SIGNATURE));
        assertEquals(SIGNATURE, Signing.square(KEY, URL, BODY));
    }

    @Test
    void theNotificationUrlIsSigned() {
        assertThrows(InvalidSignature.class, () -> verify(new SquareSignatureVerifier(KEY, URL + "/"), BODY, SIGNATURE));
        assertThrows(InvalidSignature.class, () -> verify(new SquareSignatureVerifier("other", URL), BODY, SIGNATURE));
    }

    @Test
    void refusesTamperedBodiesAndMissingOrMalformedHeaders() {
        SquareSignatureVerifier v = new SquareSignatureVerifier(KEY, URL);
        assertThrows(InvalidSignature.class, () -> verify(v, utf8("{}"), SIGNATURE));
        assertThrows(InvalidSignature.class, () -> verify(v, BODY, "not base64!"));
        assertThrows(InvalidSignature.class, () -> v.verify(Deliveries.of(BODY)));
    }
}
