package dev.exactly.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.exactly.problem.ApiProblem;
import dev.exactly.problem.FieldError;
import dev.exactly.problem.Problem;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The array envelope and the field readers, on bodies of a made-up {"things":[{"name"}]} shape. */
class ArrayEnvelopeTest {

    private static final ArrayEnvelope THINGS = ArrayEnvelope.of("things", 3, "things per request");
    /** The body being read (a raw value is cut out of it). */
    private static final byte[][] BODY = new byte[1][];

    /** A thing is {"name": string (required), "raw"?: any JSON, kept as sent}. */
    private static String thing(com.fasterxml.jackson.core.JsonParser p, ErrorPath at, List<FieldError> errors)
            throws java.io.IOException {
        if (!JsonRequest.object(p, at, "a thing must be a JSON object", errors)) {
            return null;
        }
        int before = errors.size();
        String name = null;
        String raw = "";
        for (String member; (member = JsonRequest.nextMember(p)) != null; ) {
            switch (member) {
                case "name" -> name = JsonRequest.string(p, at, member, errors);
                case "raw" -> raw = new String(JsonRequest.raw(p, BODY[0]), StandardCharsets.UTF_8);
                default -> JsonRequest.unknown(p, at, member, errors);
            }
        }
        if (name == null) {
            JsonRequest.required(errors, before, at, "name", "is required");
        }
        return errors.size() == before ? name + raw : null;
    }


    private static List<String> read(ArrayEnvelope envelope, String json) {
        BODY[0] = json.getBytes(StandardCharsets.UTF_8);
        return envelope.read(BODY[0], ArrayEnvelopeTest::thing);
    }

    private static Problem refused(ArrayEnvelope envelope, String json) {
        return assertThrows(ApiProblem.class, () -> read(envelope, json)).toProblem();
    }

    @Test
    void readsTheItemsInOrderAndKeepsRawValuesByteForByte() {
        assertEquals(List.of("a", "b{ \"z\":1.50, \"a\":[] }"),
                read(THINGS, "{\"things\":[{\"name\":\"a\"},{\"name\":\"b\",\"raw\":{ \"z\":1.50, \"a\":[] }}]}"));
        assertEquals(List.of(), read(THINGS, "{\"things\":[]}"));
    }

    @Test
    void namesItemsByTheEnvelopeInTheDetailAndByIndexInTheErrors() {
        Problem p = refused(THINGS, "{\"things\":[{\"name\":\"a\"},{\"name\":1}]}");
        assertEquals("things[1].name: must be a string", p.detail());
        assertEquals(List.of(new FieldError(1, "name", "must be a string")), p.errors());
        p = refused(THINGS, "{\"things\":[7]}");
        assertEquals(List.of(new FieldError(0, null, "a thing must be a JSON object")), p.errors());
    }

    @Test
    void aPathedEnvelopeNamesItemsInTheFieldAndNestedElementsBelowThem() {
        Problem p = refused(THINGS.pathed(), "{\"things\":[{\"name\":\"a\"},{\"nam\":\"b\"},3]}");
        assertEquals(List.of(new FieldError(null, "things[1].nam", "unknown field"),
                new FieldError(null, "things[1].name", "is required"),
                new FieldError(null, "things[2]", "a thing must be a JSON object")), p.errors());
        assertEquals("3 fields are invalid; the first: things[1].nam: unknown field", p.detail());
        ErrorPath nested = ErrorPath.ROOT.element("operations", 1).element("items", 0);
        assertEquals(new FieldError(null, "operations[1].items[0].payload", "x"), nested.error("payload", "x"));
        assertEquals(new FieldError(null, "operations[1].items[0]", "x"), nested.whole("x"));
    }

    @Test
    void refusesOtherMembersAMissingOrNonArrayEnvelopeAndTooManyItems() {
        assertEquals(List.of(new FieldError(null, "other", "unknown field"), new FieldError(null, "things", "is required")),
                refused(THINGS, "{\"other\":[1]}").errors());
        assertEquals(List.of(new FieldError(null, "things", "must be an array")),
                refused(THINGS, "{\"things\":{}}").errors());
        Problem p = refused(THINGS, "{\"things\":[{\"name\":\"a\"},{\"name\":\"a\"},{\"name\":\"a\"},{}]}");
        assertEquals("things: at most 3 things per request", p.detail());
        assertEquals("the body must be a JSON object with an \"things\" array", refused(THINGS, "[]").detail());
        assertEquals("unexpected content after the JSON object", refused(THINGS, "{\"things\":[]} {}").detail());
    }

    @Test
    void stopsAfterFiftyErrors() {
        StringBuilder b = new StringBuilder("{\"things\":[");
        for (int i = 0; i < 60; i++) {
            b.append(i == 0 ? "" : ",").append("{}");
        }
        Problem p = refused(ArrayEnvelope.of("things", 100, "things per request"), b.append("]}").toString());
        assertEquals(ArrayEnvelope.MAX_REPORTED_ERRORS, p.errors().size());
    }

    /** At its item when the envelope locates duplicates, else by its path from the body's root. */
    @Test
    void aDuplicateMemberIsNamedAtItsItemWhenTheEnvelopeLocatesDuplicatesElseByItsWholePath() {
        String body = "{\"things\":[{\"name\":\"a\"},{\"name\":\"b\",\"name\":\"c\"}]}";
        FieldError located = refused(THINGS.locatingDuplicates(), body).errors().get(0);
        assertEquals(1, located.index());
        assertEquals("name", located.field());
        FieldError plain = refused(THINGS, body).errors().get(0);
        assertNull(plain.index());
        assertEquals("things[1].name", plain.field());
    }

    @Test
    void aUuidIsThirtySixCharactersNotAShortForm() {
        assertEquals("0190a7f2-3c4d-7e5f-8a9b-0c1d2e3f4a5b",
                JsonRequest.uuid("0190a7f2-3c4d-7e5f-8a9b-0c1d2e3f4a5b").toString());
        assertNull(JsonRequest.uuid("0190a7f2-3c4d-7e5f-8a9b-0c1d2e3f4a5g"));
        assertNull(JsonRequest.uuid("1-1-1-1-1"));
    }
}
