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

class TwitchSignatureVerifierTest {

    private static final String SECRET = "s3cRe7-twitch-secret";
    private static final String ID = "e76c6bd4-55c9-4987-8304-da1588d8988b";
    private static final String TS = "2023-07-19T14:56:51.634234626Z";
    private static final Instant SENT = Instant.parse(TS);
    private static final byte[] BODY = utf8("{\"subscription\":{\"type\":\"channel.follow\"},\"event\":{\"user_id\":\"1337\"}}");

    private static TwitchSignatureVerifier at(Instant now) {
        return new TwitchSignatureVerifier(SECRET, 600, Clock.fixed(now, ZoneOffset.UTC));
    }

    private static void verify(TwitchSignatureVerifier v, String id, String ts, byte[] body, String sig) {
        v.verify(Deliveries.of(body, "Twitch-Eventsub-Message-Id", id, "Twitch-Eventsub-Message-Timestamp", ts,
                "Twitch-Eventsub-Message-Signature", sig));
    }

    @Test
    void acceptsASignedMessageAndOneAheadOfNow() {
        String sig = Signing.twitch(SECRET, ID, TS, BODY);
        assertDoesNotThrow(() -> verify(at(SENT.plusSeconds(599)), ID, TS, BODY, sig));
        // Twitch refuses only old messages
        assertDoesNotThrow(() -> verify(at(SENT.minusSeconds(3600)), ID, TS, BODY, sig));
    }

    @Test
    void refusesMessagesOlderThanTenMinutes() {
        String sig = Signing.twitch(SECRET, ID, TS, BODY);
        assertThrows(StaleTimestamp.class, () -> verify(at(SENT.plusSeconds(601)), ID, TS, BODY, sig));
        String bad = "yesterday";
        assertThrows(StaleTimestamp.class, () -> verify(at(SENT), ID, bad, BODY, Signing.twitch(SECRET, ID, bad, BODY)));
    }

    @Test
    void theIdTimestampAndBodyAreSigned() {
        String sig = Signing.twitch(SECRET, ID, TS, BODY);
        TwitchSignatureVerifier v = at(SENT);
        assertThrows(InvalidSignature.class, () -> verify(v, "other-id", TS, BODY, sig));
        assertThrows(InvalidSignature.class, () -> verify(v, ID, "2023-07-19T14:56:52.634234626Z", BODY, sig));
        assertThrows(InvalidSignature.class, () -> verify(v, ID, TS, utf8("{}"), sig));
        assertThrows(InvalidSignature.class, () -> verify(v, ID, TS, BODY, sig.substring("sha256=".length())));
        assertThrows(InvalidSignature.class, () -> v.verify(Deliveries.of(BODY, "Twitch-Eventsub-Message-Id", ID)));
    }
}
