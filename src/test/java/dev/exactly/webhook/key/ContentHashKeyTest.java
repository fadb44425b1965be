package dev.exactly.webhook.key;

import static dev.exactly.webhook.Signing.utf8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.exactly.problem.ApiProblem;
import dev.exactly.webhook.Deliveries;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

class ContentHashKeyTest {

    private final ContentHashKey whole = new ContentHashKey(List.of(), List.of());
    private final ContentHashKey volatileOut = new ContentHashKey(List.of(), List.of("/sent_at", "/meta/attempt"));

    private static String key(ContentHashKey k, String json) {
        return k.key(Deliveries.of(utf8(json)));
    }

    private static String sha256Key(String canonical) throws Exception {
        return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(canonical.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void hashesTheRfc8785CanonicalForm() throws Exception {
        // RFC 8785: members sorted by UTF-16 code units, no whitespace, numbers in ECMAScript form
        String body = "{ \"b\": [true, 1.50, 1e2], \"a\": \"\\u00e9\", \"\\u20ac\": null, \"A\": 1.0 }";
        String canonical = "{\"A\":1,\"a\":\"é\",\"b\":[true,1.5,100],\"€\":null}";
        assertEquals(canonical, new String(whole.canonicalForm(Deliveries.of(utf8(body))), StandardCharsets.UTF_8));
        assertEquals(sha256Key(canonical), key(whole, body));
    }

    @Test
    void keyOrderAndWhitespaceVariantsCollide() {
        String a = key(whole, "{\"id\":42,\"data\":{\"x\":1,\"y\":[1,2]},\"type\":\"t\"}");
        String b = key(whole, "{\n  \"type\": \"t\",\n  \"data\": { \"y\": [1, 2], \"x\": 1.0 },\n  \"id\": 42\n}");
        assertEquals(a, b);
        assertNotEquals(a, key(whole, "{\"id\":42,\"data\":{\"x\":1,\"y\":[2,1]},\"type\":\"t\"}"));
    }

    @Test
    void excludedVolatileFieldsAreIgnored() {
        String first = key(volatileOut, "{\"order\":7,\"sent_at\":\"2026-01-01T00:00:00Z\",\"meta\":{\"attempt\":1,\"src\":\"s\"}}");
        String retry = key(volatileOut, "{\"meta\":{\"src\":\"s\",\"attempt\":2},\"order\":7,\"sent_at\":\"2026-01-01T00:05:00Z\"}");
        String noVolatile = key(volatileOut, "{\"order\":7,\"meta\":{\"src\":\"s\"}}");
        assertEquals(first, retry);
        assertEquals(first, noVolatile);
        assertNotEquals(first, key(volatileOut, "{\"order\":8,\"sent_at\":\"2026-01-01T00:00:00Z\",\"meta\":{\"attempt\":1,\"src\":\"s\"}}"));
        // without the exclusions the volatile fields count
        assertNotEquals(key(whole, "{\"order\":7,\"sent_at\":\"a\"}"), key(whole, "{\"order\":7,\"sent_at\":\"b\"}"));
    }

    @Test
    void includeHashesOnlyTheSelectedValues() {
        ContentHashKey k = new ContentHashKey(List.of("/data/id", "/type"), List.of());
        String a = key(k, "{\"type\":\"paid\",\"data\":{\"id\":\"o1\",\"at\":1},\"noise\":1}");
        assertEquals(a, key(k, "{\"data\":{\"at\":2,\"id\":\"o1\"},\"type\":\"paid\",\"noise\":2}"));
        assertNotEquals(a, key(k, "{\"type\":\"paid\",\"data\":{\"id\":\"o2\"}}"));
        ApiProblem p = assertThrows(ApiProblem.class, () -> key(k, "{\"other\":1}"));
        assertEquals(400, p.status());
    }

    @Test
    void excludeRemovesArrayElements() {
        ContentHashKey k = new ContentHashKey(List.of(), List.of("/list/0"));
        assertEquals(key(k, "{\"list\":[\"volatile\",\"a\"]}"), key(k, "{\"list\":[\"other\",\"a\"]}"));
    }

    @Test
    void refusesBodiesThatAreNotIJson() {
        assertEquals(400, assertThrows(ApiProblem.class, () -> key(whole, "not json")).status());
        assertEquals(400, assertThrows(ApiProblem.class, () -> key(whole, "{\"a\":1,\"a\":2}")).status());
        assertEquals(400, assertThrows(ApiProblem.class, () -> key(whole, "")).status());
    }

    @Test
    void refusesInvalidPointers() {
        assertThrows(IllegalArgumentException.class, () -> new ContentHashKey(List.of("id"), List.of()));
        assertThrows(IllegalArgumentException.class, () -> new ContentHashKey(List.of(), List.of("")));
    }
}
