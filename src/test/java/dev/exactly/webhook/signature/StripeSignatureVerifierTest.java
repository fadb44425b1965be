package dev.exactly.webhook.signature;

import static dev.exactly.webhook.Signing.utf8;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.webhook.Deliveries;
import dev.exactly.webhook.Signing;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class StripeSignatureVerifierTest {

    private static final String SECRET = "whsec_test_secret";
    private static final long NOW = 1_700_000_000L;
    private static final byte[] BODY = utf8("{\"id\":\"evt_1\",\"object\":\"event\",\"type\":\"charge.succeeded\"}");
    private final StripeSignatureVerifier verifier = new StripeSignatureVerifier(SECRET, 300,
            Clock.fixed(Instant.ofEpochSecond(NOW), ZoneOffset.UTC));

    private void verify(byte[] body, String header) {
        verifier.verify(Deliveries.of(body, "Stripe-Signature", header));
    }

    @Test
    void acceptsASignatureWithinTheTolerance() {
        assertDoesNotThrow(() -> verify(BODY, Signing.stripe(SECRET, NOW, BODY)));
        assertDoesNotThrow(() -> verify(BODY, Signing.stripe(SECRET, NOW - 300, BODY)));
        assertDoesNotThrow(() -> verify(BODY, Signing.stripe(SECRET, NOW + 300, BODY)));
    }

    @Test
    void acceptsHeadersSignedByStripesOwnLibrary() throws Exception {
        String payload = new String(BODY, java.nio.charset.StandardCharsets.UTF_8);
        String header = com.stripe.net.Webhook.Signature.generateSignatureHeader(payload, SECRET, NOW - 42);
        assertDoesNotThrow(() -> verify(BODY, header));
        // and stripe-java accepts what the test-side signer writes, at the same clock
        assertTrue(com.stripe.net.Webhook.Signature.verifyHeader(payload, Signing.stripe(SECRET, NOW, BODY), SECRET,
                300, Clock.fixed(Instant.ofEpochSecond(NOW), ZoneOffset.UTC)));
    }

    @Test
    void aTimestampAheadOfNowIsAcceptedAsStripesLibraryDoes() throws Exception {
        String payload = new String(BODY, java.nio.charset.StandardCharsets.UTF_8);
        String ahead = Signing.stripe(SECRET, NOW + 3600, BODY);
        assertTrue(com.stripe.net.Webhook.Signature.verifyHeader(payload, ahead, SECRET, 300,
                Clock.fixed(Instant.ofEpochSecond(NOW), ZoneOffset.UTC)));
        assertDoesNotThrow(() -> verify(BODY, ahead));
    }

    @Test
    void acceptsWhenAnyV1MatchesAndIgnoresV0() {
        String header = "t=" + NOW + ",v1=" + Signing.stripeV1("old secret", NOW, BODY) + ",v1="
                + Signing.stripeV1(SECRET, NOW, BODY) + ",v0=6ffbb59b2300aae63f272406069a9788598b792a944a07aba816edb039989a39";
        assertDoesNotThrow(() -> verify(BODY, header));
    }

    @Test
    void rejectsATimestampOutsideTheTolerance() {
        InvalidSignature e = assertThrows(StaleTimestamp.class, () -> verify(BODY, Signing.stripe(SECRET, NOW - 301, BODY)));
        assertTrue(e.getMessage().contains("tolerance"), e.getMessage());
    }

    @Test
    void rejectsATamperedBodyOrTimestamp() {
        String header = Signing.stripe(SECRET, NOW, BODY);
        assertThrows(InvalidSignature.class, () -> verify(utf8("{\"id\":\"evt_2\"}"), header));
        String otherT = "t=" + (NOW - 1) + ",v1=" + Signing.stripeV1(SECRET, NOW, BODY);
        assertThrows(InvalidSignature.class, () -> verify(BODY, otherT));
    }

    @Test
    void rejectsMissingAndMalformedHeaders() {
        assertThrows(InvalidSignature.class, () -> verifier.verify(Deliveries.of(BODY)));
        assertThrows(InvalidSignature.class, () -> verify(BODY, "v1=" + Signing.stripeV1(SECRET, NOW, BODY)));
        assertThrows(InvalidSignature.class, () -> verify(BODY, "t=" + NOW));
        assertThrows(InvalidSignature.class, () -> verify(BODY, "t=soon,v1=" + Signing.stripeV1(SECRET, NOW, BODY)));
    }
}
