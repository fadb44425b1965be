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
}
