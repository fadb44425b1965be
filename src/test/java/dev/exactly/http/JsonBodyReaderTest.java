package dev.exactly.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.problem.ApiProblem;
import dev.exactly.problem.FieldError;
import dev.exactly.problem.Problem;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The strict binding of request bodies (no Quarkus): what Jackson refuses becomes a field error at
 * the place the API names, no value is coerced into another type, and a raw value keeps its bytes.
 */
class JsonBodyReaderTest {

    /** An envelope of items, as a push body is. */
    @IndexedItems
    record Envelope(List<Item> items) {
    }

    record Item(String name, Integer count, Boolean flag, UUID id, RawJson raw) {
    }

    /** A body that names values by path, as a transaction's is. */
    record Pathed(List<Item> things) {
    }

    private static FieldError refused(Class<?> type, String body) {
        Problem p = assertThrows(ApiProblem.class, () -> JsonBodyReader.read(type, utf8(body))).toProblem();
        assertEquals(400, p.status());
        return p.errors() == null ? new FieldError(null, null, p.detail()) : p.errors().get(0);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aRawValueKeepsItsBytesWhitespaceEscapesAndNumbers() {
        Envelope e = JsonBodyReader.read(Envelope.class, utf8("{\"items\":[{\"raw\": { \"b\" :1.50e3, \"a\":\"\\u0041\" } }]}"));
        assertEquals("{ \"b\" :1.50e3, \"a\":\"\\u0041\" }", new String(e.items().get(0).raw().bytes(), StandardCharsets.UTF_8));
        Item scalar = JsonBodyReader.read(Envelope.class, utf8("{\"items\":[{\"raw\":12345678901234567890}]}")).items().get(0);
        assertEquals("12345678901234567890", new String(scalar.raw().bytes(), StandardCharsets.UTF_8));
        assertTrue(JsonBodyReader.read(Envelope.class, utf8("{\"items\":[{\"raw\":null}]}")).items().get(0).raw().isNull());
        assertNull(JsonBodyReader.read(Envelope.class, utf8("{\"items\":[{}]}")).items().get(0).raw());
    }

    @Test
    void nothingIsCoercedIntoAnotherType() {
        assertEquals(new FieldError(0, "name", "must be a string"), refused(Envelope.class, "{\"items\":[{\"name\":7}]}"));
        assertEquals(new FieldError(1, "count", "must be an integer"),
                refused(Envelope.class, "{\"items\":[{},{\"count\":\"5\"}]}"));
        assertEquals(new FieldError(0, "count", "must be an integer"), refused(Envelope.class, "{\"items\":[{\"count\":1.5}]}"));
        assertEquals(new FieldError(0, "count", "must be an integer from -2147483648 to 2147483647"),
                refused(Envelope.class, "{\"items\":[{\"count\":3000000000}]}"));
        assertEquals(new FieldError(0, "flag", "must be true or false"), refused(Envelope.class, "{\"items\":[{\"flag\":1}]}"));
        // a UUID is written out in full: not Jackson's base64 form
        assertEquals(new FieldError(0, "id", "must be a UUID"),
                refused(Envelope.class, "{\"items\":[{\"id\":\"AAAAAAAAAAAAAAAAAAAAAA==\"}]}"));
        assertEquals(new FieldError(null, "items", "must be an array"), refused(Envelope.class, "{\"items\":{}}"));
        assertEquals(new FieldError(2, null, "must be a JSON object"), refused(Envelope.class, "{\"items\":[{},{},3]}"));
    }

    @Test
    void unknownAndRepeatedMembersAreNamedWhereTheySit() {
        assertEquals(new FieldError(0, "nmae", "unknown field"), refused(Envelope.class, "{\"items\":[{\"nmae\":\"x\"}]}"));
        assertEquals(new FieldError(null, "things[1].nmae", "unknown field"),
                refused(Pathed.class, "{\"things\":[{},{\"nmae\":\"x\"}]}"));
        FieldError inRaw = refused(Envelope.class, "{\"items\":[{\"raw\":[1,{\"q\":1,\"q\":2}]}]}");
        assertEquals(0, inRaw.index());
        assertEquals("raw[1].q", inRaw.field());
        assertTrue(inRaw.message().startsWith("Duplicate field 'q'"), inRaw.message());
        assertEquals("items", refused(Envelope.class, "{\"items\":[],\"items\":[]}").field());
    }

    @Test
    void theBodyMustBeOneUtf8JsonObject() {
        assertTrue(refused(Envelope.class, "[]").message().contains("must be a JSON object"), refused(Envelope.class, "[]").message());
        assertTrue(refused(Envelope.class, "null").message().contains("must be a JSON object"));
        assertTrue(refused(Envelope.class, "{} {}").message().contains("after the JSON object"));
        assertTrue(refused(Envelope.class, "{\"items\":[").message().startsWith("malformed JSON"));
        String deep = refused(Envelope.class, "{\"items\":[{\"raw\":" + "[".repeat(1000) + "]".repeat(1000) + "}]}").message();
        assertTrue(deep.contains("read limit"), deep);
        Problem utf16 = assertThrows(ApiProblem.class, () -> JsonBodyReader.read(Envelope.class,
                "{\"items\":[]}".getBytes(StandardCharsets.UTF_16BE))).toProblem();
        assertTrue(utf16.detail().contains("UTF-8"), utf16.detail());
        Problem overlong = assertThrows(ApiProblem.class, () -> JsonBodyReader.read(Envelope.class,
                new byte[] {'{', '"', (byte) 0xC0, (byte) 0x80, '"', ':', '1', '}'})).toProblem();
        assertTrue(overlong.detail().contains("at byte 2"), overlong.detail());
        // no body at all is {}
        assertNull(JsonBodyReader.read(Envelope.class, new byte[0]).items());
        assertNull(JsonBodyReader.read(Envelope.class, utf8(" \n")).items());
    }

    @Test
    void utf8IsCheckedWholeWhateverTheBodysLength() {
        // supplementary characters (a surrogate pair once decoded) at every offset around the
        // decode buffer's sizes, then a lone continuation byte at the very end of a long body
        for (int pad : new int[] {0, 1, 2, 3, 4093, 4094, 4095, 4096, 4097, 9000}) {
            String raw = "\"" + "a".repeat(pad) + "\uD83D\uDE00\"";
            Item item = JsonBodyReader.read(Envelope.class, utf8("{\"items\":[{\"raw\":" + raw + "}]}")).items().get(0);
            assertEquals(raw, new String(item.raw().bytes(), StandardCharsets.UTF_8));
            byte[] bad = utf8("{\"items\":[{\"raw\":\"" + "a".repeat(pad) + "\"}]}  ");
            bad[bad.length - 1] = (byte) 0x80;
            Problem p = assertThrows(ApiProblem.class, () -> JsonBodyReader.read(Envelope.class, bad)).toProblem();
            assertTrue(p.detail().contains("at byte " + (bad.length - 1)), p.detail());
        }
    }

    /**
     * A raw value holding a lone surrogate escape is refused, named down to the string that holds it
     * (a new-user check: it was stored, and no AWS destination could ever deliver it); a pair, an
     * escaped backslash before "ud800" and a plain character pass.
     */
    @Test
    void aLoneSurrogateEscapeInARawValueIsRefusedWhereItIs() {
        String unicode = "must be well-formed Unicode (I-JSON, RFC 7493 section 2.1): lone surrogate escape ";
        FieldError e = refused(Envelope.class, "{\"items\":[{},{\"raw\":{\"a\":\"x\\ud800\"}}]}");
        assertEquals(new FieldError(1, "raw.a", unicode + "\\ud800 at byte 27"), e);
        assertEquals(new FieldError(0, "raw", unicode + "\\uDC00 at byte 18"),
                refused(Envelope.class, "{\"items\":[{\"raw\":\"\\uDC00\"}]}"));
        assertEquals("raw[1]", refused(Envelope.class, "{\"items\":[{\"raw\":[1,\"\\ud800\\u0041\"]}]}").field());
        assertEquals("raw[0]", refused(Envelope.class, "{\"items\":[{\"raw\":[\"\\ude00\\ud83d\"]}]}").field());
        // in a member name the parser itself refuses it, as malformed JSON
        assertTrue(refused(Envelope.class, "{\"items\":[{\"raw\":{\"o\":{\"\\ud800\":1}}}]}").message().contains("surrogate"));
        assertTrue(refused(Envelope.class, "{\"items\":[{\"raw\":{\"\\udc00\":1}}]}").message().contains("surrogate"));
        assertEquals(new FieldError(null, "things[0].raw.a[0]", null).field(),
                refused(Pathed.class, "{\"things\":[{\"raw\":{\"a\":[\"\\udbff\"]}}]}").field());
        for (String fine : new String[] {"\"\\ud83d\\ude00\"", "\"\\\\ud800\"", "\"\\u00e9\\\"\\ud83D\\uDe00\"", "{\"\\ud83d\\ude00\":\"\\/\"}"}) {
            Item item = JsonBodyReader.read(Envelope.class, utf8("{\"items\":[{\"raw\":" + fine + "}]}")).items().get(0);
            assertEquals(fine, new String(item.raw().bytes(), StandardCharsets.UTF_8));
        }
    }

    @Test
    void loneSurrogateEscapesAreFoundByTheirBackslash() {
        assertEquals(-1, RawJson.loneSurrogateEscape(utf8("\"\\ud83d\\ude00 \\\\ud800 \\u0041\"")));
        assertEquals(1, RawJson.loneSurrogateEscape(utf8("\"\\ud83d\"")));
        assertEquals(1, RawJson.loneSurrogateEscape(utf8("\"\\ud83d\\n\"")));
        assertEquals(7, RawJson.loneSurrogateEscape(utf8("\"\\u0041\\ude00\"")));
        assertEquals(3, RawJson.loneSurrogateEscape(utf8("\"\\\\\\ud800\"")));
    }

    /** A UTF-8 byte order mark before the body is skipped: the raw value's bytes are cut after it. */
    @Test
    void aUtf8ByteOrderMarkBeforeTheBodyIsSkipped() {
        byte[] json = utf8("{\"items\":[{\"raw\": {\"a\":1} }]}");
        byte[] body = new byte[json.length + 3];
        body[0] = (byte) 0xEF;
        body[1] = (byte) 0xBB;
        body[2] = (byte) 0xBF;
        System.arraycopy(json, 0, body, 3, json.length);
        assertEquals("{\"a\":1}", new String(JsonBodyReader.read(Envelope.class, body).items().get(0).raw().bytes(), StandardCharsets.UTF_8));
        assertNull(JsonBodyReader.read(Envelope.class, new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}).items(), "a mark alone reads as {}");
        byte[] twice = new byte[body.length + 3];
        System.arraycopy(body, 0, twice, 0, 3);
        System.arraycopy(body, 0, twice, 3, body.length);
        assertThrows(ApiProblem.class, () -> JsonBodyReader.read(Envelope.class, twice), "a second mark is no JSON");
    }
}
