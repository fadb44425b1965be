package dev.exactly.task;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** The autoDedupe key construction: RFC 8785 canonical data, length framing, SHA-256. */
class DedupeKeysTest {

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String canonical(String json) throws IOException {
        return new String(DedupeKeys.canonical(utf8(json)), StandardCharsets.UTF_8);
    }

    private static byte[] key(String type, String json) throws IOException {
        return DedupeKeys.key(type, DedupeKeys.canonical(utf8(json)));
    }

    @Test
    void rfc8785SectionThreeTwoThreeExample() throws IOException {
        String input = "{\n  \"numbers\": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],\n"
                + "  \"string\": \"\\u20ac$\\u000F\\u000aA'\\u0042\\u0022\\u005c\\\\\\\"\\/\",\n"
                + "  \"literals\": [null, true, false]\n}";
        String expected = "{\"literals\":[null,true,false],\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27],"
                + "\"string\":\"\u20ac$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}";
        assertEquals(expected, canonical(input));
    }

    @Test
    void scalarsCanonicaliseToo() throws IOException {
        assertEquals("\"x\"", canonical("\"x\""));
        assertEquals("1", canonical("1.0"));
        assertEquals("null", canonical("null"));
        assertEquals("0", canonical("-0"));
        assertEquals("1e+21", canonical("1E21"));
    }

    @Test
    void memberOrderWhitespaceAndNumberSpellingDoNotMatterArrayOrderDoes() throws IOException {
        byte[] a = key("send_digest", "{\"user\":\"john\",\"period\":\"daily\",\"n\":[1,2]}");
        assertArrayEquals(a, key("send_digest", "{ \"period\" : \"daily\",\n\t\"n\": [1.0, 2e0], \"user\":\"john\" }"));
        assertArrayEquals(a, key("send_digest", "{\"user\":\"jo\\u0068n\",\"period\":\"daily\",\"n\":[1,2]}"));
        assertFalse(Arrays.equals(a, key("send_digest", "{\"user\":\"john\",\"period\":\"daily\",\"n\":[2,1]}")));
        assertFalse(Arrays.equals(a, key("send_email", "{\"user\":\"john\",\"period\":\"daily\",\"n\":[1,2]}")));
        assertFalse(Arrays.equals(key("t", "1"), key("t", "\"1\"")));
    }

    @Test
    void lengthFramingKeepsTypeAndDataApart() throws IOException {
        // Plain concatenation of type and canonical data would collide here ...
        assertEquals("job1" + canonical("23"), "job12" + canonical("3"));
        // ... the framed key does not.
        assertFalse(Arrays.equals(key("job1", "23"), key("job12", "3")));
        assertFalse(Arrays.equals(key("ab", "\"c\""), key("a", "\"bc\"")));
    }

    @Test
    void keyIsShaOfTheDocumentedFraming() throws Exception {
        // type "t" (1 byte), data {"b":1,"a":2} -> {"a":2,"b":1} (13 bytes)
        byte[] input = HexFormat.of().parseHex("00000001" + "74" + "0000000d")
                .clone();
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        sha.update(input);
        sha.update(utf8("{\"a\":2,\"b\":1}"));
        assertArrayEquals(sha.digest(), key("t", "{\"b\":1,\"a\":2}"));
        assertEquals(DedupeKeys.KEY_BYTES, key("t", "1").length);
    }

    @Test
    void numbersOutsideTheDoubleRangeCannotBeCanonicalised() {
        assertThrows(IOException.class, () -> DedupeKeys.canonical(utf8("[1e400]")));
    }
}
