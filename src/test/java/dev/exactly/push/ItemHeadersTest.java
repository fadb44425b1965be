package dev.exactly.push;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A stored field (a first-class item field kept among the headers) against the user's headers:
 * written first when given, and its name refused as a user header whether the field is given or
 * not. No stored field exists yet, so this is held at the rules themselves; the HTTP behaviour of
 * the rules is PushHeadersTest's.
 */
class ItemHeadersTest {

    private static List<String> broken(Map<String, String> headers, String[] stored) {
        List<String> out = new ArrayList<>();
        ItemHeaders.check(headers, stored, (field, why) -> out.add(field + ": " + why));
        return out;
    }

    @Test
    void aUserHeaderNamedAsAStoredFieldIsRefusedWhetherTheFieldIsGivenOrNot() {
        Map<String, String> h = Map.of("source", "user");
        assertEquals(List.of("headers.source: is the item's own field source: give it there"),
                broken(h, new String[] {"source", "billing"}));
        assertEquals(List.of("headers.source: is the item's own field source: give it there"),
                broken(h, new String[] {"source", null}));
        assertEquals(List.of(), broken(Map.of("Source", "user"), new String[] {"source", null}), "names are case-sensitive");
        assertEquals(List.of(), broken(h, ItemHeaders.NONE));
    }

    @Test
    void aStoredFieldsValueFollowsTheValueRulesOnItsOwnField() {
        assertEquals(List.of("source: must not contain NUL (U+0000)"), broken(null, new String[] {"source", "a\u0000"}));
        assertEquals(List.of("source: must be well-formed Unicode (lone surrogate at character 0)"),
                broken(null, new String[] {"source", "\ud800"}));
        assertEquals(List.of("source: must be at most 1024 UTF-8 bytes"), broken(null, new String[] {"source", "x".repeat(1025)}));
        assertEquals(List.of(), broken(null, new String[] {"source", "billing", "other", null}));
    }

    @Test
    void storedFieldsGivenComeFirstAndAbsentOnesAreLeftOut() {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("b", "2");
        h.put("a", "1");
        assertEquals("{\"source\":\"billing\",\"b\":\"2\",\"a\":\"1\"}",
                ItemHeaders.json(h, new String[] {"source", "billing", "other", null}));
        assertEquals("{\"source\":\"billing\"}", ItemHeaders.json(null, new String[] {"source", "billing"}));
        assertNull(ItemHeaders.json(null, new String[] {"source", null}));
        assertNull(ItemHeaders.json(Map.of(), ItemHeaders.NONE));
        assertNull(ItemHeaders.json(null, ItemHeaders.NONE));
        assertEquals("{\"q\":\"\\\"\\\\\\n\u00e9\"}", ItemHeaders.json(Map.of("q", "\"\\\n\u00e9"), ItemHeaders.NONE));
    }

    @Test
    void aRefusedNameIsQuotedWithItsNonAsciiCharactersEscapedSoTheClientSeesWhichItWas() {
        assertEquals(List.of("headers: has the name \"\\u00e9t\\u00e9\": a name is 1 to 64 characters of A-Z, a-z, 0-9, '.', '_' and '-'"),
                broken(Map.of("\u00e9t\u00e9", "v"), ItemHeaders.NONE));
        assertEquals("a\\u0000b\\u005c", ItemHeaders.shown("a\u0000b\\"));
    }
}
