package dev.exactly.webhook.signature;

import static dev.exactly.webhook.Signing.utf8;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.exactly.webhook.Deliveries;
import dev.exactly.webhook.Delivery;
import dev.exactly.webhook.Signing;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The library checks the timestamp against the system clock, so the vectors are signed "now". */
class StandardWebhooksVerifierTest {

    private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    private static final String ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    private static final byte[] BODY = utf8("{\"type\":\"contact.created\",\"timestamp\":\"2022-11-03T20:26:10.344522Z\","
            + "\"data\":{\"id\":\"c_1\",\"name\":\"Zoë\"}}");
    private final StandardWebhooksVerifier verifier = new StandardWebhooksVerifier(SECRET);

    private static Delivery delivery(byte[] body, String id, long ts, String signature) {
        return Deliveries.of(body, "webhook-id", id, "webhook-timestamp", Long.toString(ts), "webhook-signature", signature);
    }

    private static long now() {
        return System.currentTimeMillis() / 1000;
    }

    @Test
    void acceptsAFreshSignature() {
        long ts = now();
        assertDoesNotThrow(() -> verifier.verify(delivery(BODY, ID, ts, Signing.standardWebhooks(SECRET, ID, ts, BODY))));
    }

    @Test
    void acceptsWhenOneOfSeveralSignaturesMatches() {
        long ts = now();
        String sigs = Signing.standardWebhooks("whsec_" + "b2xkIGtleSBvbGQga2V5", ID, ts, BODY) + " "
                + Signing.standardWebhooks(SECRET, ID, ts, BODY);
        assertDoesNotThrow(() -> verifier.verify(delivery(BODY, ID, ts, sigs)));
    }

    @Test
    void rejectsATamperedBodyOrId() {
        long ts = now();
        String sig = Signing.standardWebhooks(SECRET, ID, ts, BODY);
        assertThrows(InvalidSignature.class, () -> verifier.verify(delivery(utf8("{\"type\":\"x\"}"), ID, ts, sig)));
        assertThrows(InvalidSignature.class, () -> verifier.verify(delivery(BODY, "msg_other", ts, sig)));
    }

    @Test
    void rejectsAStaleOrFutureTimestamp() {
        long old = now() - 600;
        assertThrows(InvalidSignature.class,
                () -> verifier.verify(delivery(BODY, ID, old, Signing.standardWebhooks(SECRET, ID, old, BODY))));
        long future = now() + 600;
        assertThrows(InvalidSignature.class,
                () -> verifier.verify(delivery(BODY, ID, future, Signing.standardWebhooks(SECRET, ID, future, BODY))));
    }

    @Test
    void theTestSignerMatchesTheSpecificationsVector() {
        // the Standard Webhooks specification's symmetric test vector
        assertEquals("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", Signing.standardWebhooks(SECRET,
                "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330L, utf8("{\"test\": 2432232314}")));
    }

    @Test
    void acceptsDeliveriesSignedByTheReferenceLibrary() throws Exception {
        long ts = now();
        String sig = new com.standardwebhooks.Webhook(SECRET).sign(ID, ts, new String(BODY, StandardCharsets.UTF_8));
        assertDoesNotThrow(() -> verifier.verify(delivery(BODY, ID, ts, sig)));
    }

    @Test
    void acceptsSvixHeaderNamesAsAliases() {
        long ts = now();
        String sig = Signing.standardWebhooks(SECRET, ID, ts, BODY);
        assertDoesNotThrow(() -> verifier.verify(Deliveries.of(BODY, "svix-id", ID, "svix-timestamp", Long.toString(ts),
                "svix-signature", sig)));
        assertThrows(InvalidSignature.class, () -> verifier.verify(Deliveries.of(BODY, "svix-id", "msg_other",
                "svix-timestamp", Long.toString(ts), "svix-signature", sig)));
    }

    @Test
    void aStaleTimestampIsToldApart() {
        long old = now() - 301;
        assertThrows(StaleTimestamp.class,
                () -> verifier.verify(delivery(BODY, ID, old, Signing.standardWebhooks(SECRET, ID, old, BODY))));
        long ahead = now() + 301;
        assertThrows(StaleTimestamp.class,
                () -> verifier.verify(delivery(BODY, ID, ahead, Signing.standardWebhooks(SECRET, ID, ahead, BODY))));
    }

    @Test
    void rejectsMissingHeadersAndNonUtf8Bodies() {
        assertThrows(InvalidSignature.class, () -> verifier.verify(Deliveries.of(BODY)));
        long ts = now();
        byte[] binary = {(byte) 0xff, (byte) 0xfe, 0x01};
        assertThrows(InvalidSignature.class,
                () -> verifier.verify(delivery(binary, ID, ts, Signing.standardWebhooks(SECRET, ID, ts, binary))));
    }
}
