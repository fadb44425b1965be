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

/** Against the worked example of Slack's "Verifying requests from Slack" (secret, timestamp, body, signature). */
class SlackSignatureVerifierTest {

    private static final String SECRET = "8f742231b10e8888abcd99yyyzzz85a5";
    private static final long TS = 1531420618L;
    private static final byte[] BODY = utf8("token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow"
            + "&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner"
            + "&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J"
            + "%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c");
    private static final String SIGNATURE = "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503";

    private static SlackSignatureVerifier at(long now) {
        return new SlackSignatureVerifier(SECRET, 300, Clock.fixed(Instant.ofEpochSecond(now), ZoneOffset.UTC));
    }

    private static void verify(SlackSignatureVerifier v, byte[] body, long ts, String sig) {
        v.verify(Deliveries.of(body, "X-Slack-Request-Timestamp", Long.toString(ts), "X-Slack-Signature", sig));
    }

    @Test
    void acceptsSlacksDocumentedExample() {
        assertDoesNotThrow(() -> verify(at(TS + 10), BODY, TS, SIGNATURE));
        // the test-side signer agrees with the documented signature
        org.junit.jupiter.api.Assertions.assertEquals(SIGNATURE, Signing.slack(SECRET, TS, BODY));
    }

    @Test
    void refusesTimestampsOutsideFiveMinutesEitherWay() {
        assertThrows(StaleTimestamp.class, () -> verify(at(TS + 301), BODY, TS, SIGNATURE));
        assertThrows(StaleTimestamp.class, () -> verify(at(TS - 301), BODY, TS, SIGNATURE));
        assertDoesNotThrow(() -> verify(at(TS - 300), BODY, TS, SIGNATURE));
    }

    @Test
    void refusesTamperingAndMissingHeaders() {
        SlackSignatureVerifier v = at(TS);
        InvalidSignature e = assertThrows(InvalidSignature.class, () -> verify(v, utf8("token=other"), TS, SIGNATURE));
        org.junit.jupiter.api.Assertions.assertFalse(e instanceof StaleTimestamp);
        assertThrows(InvalidSignature.class, () -> verify(v, BODY, TS + 1, SIGNATURE));
        assertThrows(InvalidSignature.class, () -> verify(v, BODY, TS, SIGNATURE.replace("v0=", "v1=")));
        assertThrows(InvalidSignature.class, () -> v.verify(Deliveries.of(BODY, "X-Slack-Signature", SIGNATURE)));
    }
}
