package dev.exactly.destination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What travels as JSON and what as base64, which characters SQS takes, and the FIFO group of a partition. */
class AwsPayloadTest {

    private static String json(String s) {
        return AwsPayload.json(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void oneJsonValueInUtf8IsJson() {
        assertEquals("{\"a\": [1, 2.50, \"é\"]}", json("{\"a\": [1, 2.50, \"é\"]}"));
        assertEquals(" 42\n", json(" 42\n"));
        assertEquals("\"text\"", json("\"text\""));
        assertNull(json("payload=%7B%7D"), "form-encoded");
        assertNull(json("{\"a\":1} {\"b\":2}"), "two values");
        assertNull(json("{\"a\":1"), "cut short");
        assertNull(json("{'a':1}"), "not RFC 8259");
        assertNull(json(""), "empty");
        assertNull(AwsPayload.json(new byte[] {'"', (byte) 0xC3, '"'}), "not UTF-8");
        assertNull(AwsPayload.json(new byte[] {'"', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"'}), "a surrogate in UTF-8");
        // JSON, but not I-JSON (a webhook body is stored as sent): base64, as no strict reader takes it
        assertNull(json("{\"a\":\"\\ud800\"}"), "a lone surrogate escape");
        assertNull(json("[\"\\udc00\\ud800\"]"), "surrogate escapes in the wrong order");
        assertEquals("{\"a\":\"\\ud83d\\ude00 \\\\ud800\"}", json("{\"a\":\"\\ud83d\\ude00 \\\\ud800\"}"), "a pair, and an escaped backslash");
    }

    /** PutEvents takes JSON integers of a signed 64-bit range only: a payload with others goes base64 to EventBridge. */
    @Test
    void eventBridgeTakesNumbersInItsRangeOnly() {
        for (String ok : List.of("{\"n\":9223372036854775807,\"m\":-9223372036854775808}", "[1.5e308, -2.5, 0]",
                "{\"a\":{\"b\":[1,{\"c\":12345678901234567890.5}]}}", "\"12345678901234567890\"", "7")) {
            assertEquals(ok, AwsPayload.eventBridgeJson(ok.getBytes(StandardCharsets.UTF_8)), ok);
        }
        for (String no : List.of("{\"n\":9223372036854775808}", "[-9223372036854775809]", "{\"a\":[{\"b\":1e400}]}",
                "12345678901234567890123")) {
            assertNull(AwsPayload.eventBridgeJson(no.getBytes(StandardCharsets.UTF_8)), no);
            assertEquals(no, json(no), "SQS takes it as text");
        }
        assertNull(AwsPayload.eventBridgeJson("{\"a\":1} {\"b\":2}".getBytes(StandardCharsets.UTF_8)), "two values");
        assertNull(AwsPayload.eventBridgeJson("{\"a\":\"\\ud800\"}".getBytes(StandardCharsets.UTF_8)), "a lone surrogate escape");
    }

    @Test
    void sqsTakesTheXmlCharacters() {
        assertTrue(AwsPayload.sqsText("tab\there\nand\r é ✓ \uD83D\uDE00"));
        assertFalse(AwsPayload.sqsText("nul\u0000"));
        assertFalse(AwsPayload.sqsText("bell\u0007"));
        assertFalse(AwsPayload.sqsText("\uFFFE"));
        assertFalse(AwsPayload.sqsText("\uFFFF"));
    }

    @Test
    void theGroupIsQueueAndPartitionHashedPast128Characters() {
        assertEquals("webhooks.github/Default", AwsPayload.groupId("webhooks.github", "Default"));
        String q = "q".repeat(60);
        String p = "p".repeat(128 - 61);
        assertEquals(q + "/" + p, AwsPayload.groupId(q, p), "128 characters: as it is");
        String hashed = AwsPayload.groupId(q, p + "x");
        assertTrue(hashed.matches("sha256:[0-9a-f]{64}"), hashed);
        // SHA-256 of the UTF-8 bytes of "<queue>/<partition>" (here: of "a" x 200 + "/b"), as sha256sum prints it
        assertEquals("sha256:" + sha256Hex("a".repeat(200) + "/b"), AwsPayload.groupId("a".repeat(200), "b"));
        assertEquals(AwsPayload.groupId(q, p + "x"), AwsPayload.groupId(q, p + "x"), "the same partition, the same group");
    }

    private static String sha256Hex(String s) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                    .digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }
}
