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

class PaddleSignatureVerifierTest {

    private static final String SECRET = "pdl_ntfset_01gkpjp8bkm3tm53kdgkx6sms7_6h3qd3uFSi9YCD3OLYAShQI90XTI5vEI";
    private static final long TS = 1_671_552_777L;
    private static final byte[] BODY = utf8("{\"event_id\":\"evt_01gks14ge726w50ch2tmaw2a1x\",\"event_type\":\"subscription.created\"}");

    private static PaddleSignatureVerifier at(long now) {
        return new PaddleSignatureVerifier(SECRET, 5, Clock.fixed(Instant.ofEpochSecond(now), ZoneOffset.UTC));
    }

    private static void verify(PaddleSignatureVerifier v, byte[] body, String header) {
        v.verify(Deliveries.of(body, "Paddle-Signature", header));
    }

    @Test
    void acceptsASignatureWithinFiveSecondsAndOneAheadOfNow() {
        String header = Signing.paddle(SECRET, TS, BODY);
        assertDoesNotThrow(() -> verify(at(TS + 5), BODY, header));
        assertDoesNotThrow(() -> verify(at(TS - 60), BODY, header));
    }

    @Test
    void anyH1MaySignWhileASecretIsRotated() {
        String rotated = "ts=" + TS + ";h1=" + Signing.paddle("old secret", TS, BODY).split("h1=")[1]
                + ";h1=" + Signing.paddle(SECRET, TS, BODY).split("h1=")[1];
        assertDoesNotThrow(() -> verify(at(TS), BODY, rotated));
    }

    @Test
    void refusesOldTimestampsTamperingAndMalformedHeaders() {
        String header = Signing.paddle(SECRET, TS, BODY);
        assertThrows(StaleTimestamp.class, () -> verify(at(TS + 6), BODY, header));
        PaddleSignatureVerifier v = at(TS);
        assertThrows(InvalidSignature.class, () -> verify(v, utf8("{\"event_id\":\"evt_2\"}"), header));
        assertThrows(InvalidSignature.class, () -> verify(v, BODY, header.replace("ts=" + TS, "ts=" + (TS - 1))));
        assertThrows(InvalidSignature.class, () -> verify(v, BODY, "ts=" + TS));
        assertThrows(InvalidSignature.class, () -> v.verify(Deliveries.of(BODY)));
    }
}
