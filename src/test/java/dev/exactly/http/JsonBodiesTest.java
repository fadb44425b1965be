package dev.exactly.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.problem.ApiProblem;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class JsonBodiesTest {

    private static byte[] bytes(int... b) {
        byte[] out = new byte[b.length];
        for (int i = 0; i < b.length; i++) {
            out[i] = (byte) b[i];
        }
        return out;
    }

    @Test
    void wellFormedUtf8Passes() {
        assertEquals(-1, JsonBodies.malformedUtf8At("{\"a\":\"caf\u00e9 \ud83d\ude00\"}".getBytes(StandardCharsets.UTF_8)));
        assertEquals(-1, JsonBodies.malformedUtf8At(new byte[0]));
    }

    @Test
    void overlongSurrogateAndOutOfRangeSequencesAreFound() {
        assertEquals(1, JsonBodies.malformedUtf8At(bytes('"', 0xC0, 0x80, '"')));          // overlong NUL
        assertEquals(1, JsonBodies.malformedUtf8At(bytes('"', 0xE0, 0x80, 0x80, '"')));    // overlong
        assertEquals(1, JsonBodies.malformedUtf8At(bytes('"', 0xED, 0xA0, 0x80, '"')));    // surrogate D800
        assertEquals(1, JsonBodies.malformedUtf8At(bytes('"', 0xF4, 0x90, 0x80, 0x80, '"'))); // above U+10FFFF
        assertEquals(1, JsonBodies.malformedUtf8At(bytes('"', 0xF5, 0x80, 0x80, 0x80, '"')));
        assertEquals(1, JsonBodies.malformedUtf8At(bytes('"', 0xE2, 0x82)));                // truncated
    }

    @Test
    void aMalformedBodyIsA400() {
        ApiProblem p = assertThrows(ApiProblem.class, () -> JsonBodies.requireUtf8(bytes('{', '"', 0xC0, 0x80, '"', '}')));
        assertEquals(400, p.status());
    }

    @Test
    void parserInternalsStayOutOfTheDetail() {
        String deep = "[".repeat(1100) + "]".repeat(1100);
        String detail = assertThrows(ApiProblem.class, () -> JsonBodies.object(deep.getBytes(StandardCharsets.UTF_8)))
                .toProblem().detail();
        assertFalse(detail.contains("`"), detail);
        assertFalse(detail.contains("StreamRead"), detail);
        assertTrue(detail.contains("nesting depth"), detail);
        String dup = assertThrows(ApiProblem.class, () -> JsonBodies.object("{\"a\":1,\"a\":2}".getBytes(StandardCharsets.UTF_8)))
                .toProblem().detail();
        assertTrue(dup.contains("Duplicate field 'a'"), dup);
        assertFalse(dup.contains("Source"), dup);
        assertEquals("Unexpected end-of-input", JsonBodies.readable("Unexpected end-of-input\n at [Source: REDACTED "
                + "(`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 2]"));
    }

    /** A body cut off inside an object: the detail's parentheses balance (found by a new-user check). */
    @Test
    void aCutOffObjectIsDescribedWithBalancedParentheses() {
        String detail = assertThrows(ApiProblem.class, () -> JsonBodies.object("{\"a\":[1,2".getBytes(StandardCharsets.UTF_8)))
                .toProblem().detail();
        assertTrue(detail.contains("expected close marker for Array"), detail);
        assertEquals(detail.chars().filter(ch -> ch == '(').count(), detail.chars().filter(ch -> ch == ')').count(), detail);
        assertFalse(detail.contains("start marker"), detail);
    }

    /**
     * Issue 14, defect 9: what JSON does not allow (RFC 8259) is refused in plain words, never
     * naming the parser setting that would allow it.
     */
    @Test
    void nonStandardJsonIsRefusedWithoutNamingParserSettings() {
        String[] bodies = {
            "{\"a\":NaN}", "{\"a\":Infinity}", "{\"a\":-Infinity}", "{\"a\":+Infinity}",
            "{\"a\":1 // note\n}", "{\"a\":1 /* note */}", "{\"a\":1 # note\n}", "{'a':1}", "{a:1}",
            "{\"a\":[1,]}", "{\"a\":1,}", "{\"a\":+1}", "{\"a\":.5}", "{\"a\":01}", "{\"a\":\"\\q\"}",
            "{\"a\":\"x\ny\"}", "{\"a\":1}{}", "{\"a\":tru}", "{\"a\":1.}"
        };
        for (String body : bodies) {
            ApiProblem p = assertThrows(ApiProblem.class, () -> JsonBodies.object(body.getBytes(StandardCharsets.UTF_8)),
                    body);
            String detail = p.toProblem().detail();
            assertEquals(400, p.status(), body);
            for (String internal : new String[] {"Feature", "ALLOW_", "`", "enable", "FAIL_ON", "Source"}) {
                assertFalse(detail.contains(internal), body + " -> " + detail);
            }
            assertTrue(detail.startsWith("malformed JSON: "), body + " -> " + detail);
        }
        String nan = assertThrows(ApiProblem.class, () -> JsonBodies.object("{\"a\":NaN}".getBytes(StandardCharsets.UTF_8)))
                .toProblem().detail();
        assertTrue(nan.contains("'NaN'"), nan);
        String comment = assertThrows(ApiProblem.class, () -> JsonBodies.object("{\"a\":1 // c\n}".getBytes(StandardCharsets.UTF_8)))
                .toProblem().detail();
        assertTrue(comment.contains("comment"), comment);
    }
}
