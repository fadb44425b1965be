package dev.exactly.webhook.signature;

import static dev.exactly.webhook.Signing.utf8;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.exactly.webhook.Deliveries;
import dev.exactly.webhook.Signing;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class LinearSignatureVerifierTest {

    private static final String SECRET = "lin_wh_test_secret";
    private static final long SENT = 1_714_478_400_000L;

    private static byte[] body(long ts) {
        return utf8("{\"action\":\"update\",\"type\":\"Issue\",\"data\":{\"id\":\"i1\"},\"webhookTimestamp\":" + ts + "}");
    }

    private static LinearSignatureVerifier at(long nowMillis) {
        return new LinearSignatureVerifier(SECRET, 60, Clock.fixed(Instant.ofEpochMilli(nowMillis), ZoneOffset.UTC));
    }

    private static void verify(LinearSignatureVerifier v, byte[] body, String sig) {
        v.verify(Deliveries.of(body, "Linear-Signature", sig));
    }

    @Test
    void acceptsASignedBodyWithinAMinute() {
        byte[] b = body(SENT);
        assertDoesNotThrow(() -> verify(at(SENT + 60_000), b, Signing.linear(SECRET, b)));
        assertDoesNotThrow(() -> verify(at(SENT - 60_000), b, Signing.linear(SECRET, b)));
    }

    @Test
    void refusesTimestampsOutsideAMinuteEitherWay() {
        byte[] b = body(SENT);
        assertThrows(StaleTimestamp.class, () -> verify(at(SENT + 60_001), b, Signing.linear(SECRET, b)));
        assertThrows(StaleTimestamp.class, () -> verify(at(SENT - 60_001), b, Signing.linear(SECRET, b)));
        byte[] none = utf8("{\"action\":\"update\"}");
        assertThrows(StaleTimestamp.class, () -> verify(at(SENT), none, Signing.linear(SECRET, none)));
        byte[] text = utf8("not json");
        assertThrows(StaleTimestamp.class, () -> verify(at(SENT), text, Signing.linear(SECRET, text)));
    }

    @Test
    void refusesTamperingAndMissingSignatures() {
        byte[] b = body(SENT);
        LinearSignatureVerifier v = at(SENT);
        InvalidSignature e = assertThrows(InvalidSignature.class, () -> verify(v, body(SENT + 1), Signing.linear(SECRET, b)));
        org.junit.jupiter.api.Assertions.assertFalse(e instanceof StaleTimestamp);
        assertThrows(InvalidSignature.class, () -> v.verify(Deliveries.of(b)));
    }
}
