package dev.exactly.webhook.key;

import static dev.exactly.webhook.Signing.utf8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.exactly.problem.ApiProblem;
import dev.exactly.webhook.Deliveries;
import org.junit.jupiter.api.Test;

class FieldKeyTest {

    @Test
    void headerKeyIsCaseInsensitiveAndRequired() {
        FieldKey k = new FieldKey(new HeaderField("X-GitHub-Delivery"));
        assertEquals("d-1", k.key(Deliveries.of(utf8("{}"), "x-github-delivery", "d-1")));
        ApiProblem p = assertThrows(ApiProblem.class, () -> k.key(Deliveries.of(utf8("{}"))));
        assertEquals(400, p.status());
        assertEquals("X-GitHub-Delivery", p.toProblem().errors().get(0).field());
        assertThrows(ApiProblem.class, () -> k.key(Deliveries.of(utf8("{}"), "X-GitHub-Delivery", "  ")));
    }

    /**
     * A header's characters as the server's HTTP layer hands them over are its bytes (ISO-8859-1):
     * UTF-8 bytes are read as UTF-8; other bytes stay ISO-8859-1 text; a value already decoded (the
     * Lambda shape's event: a character past U+00FF, or a Latin-1 letter) is taken as it is.
     */
    @Test
    void headerKeyIsReadAsUtf8WhenItsBytesAreUtf8() {
        FieldKey k = new FieldKey(new HeaderField("X-GitHub-Delivery"));
        String raw = new String(utf8("d-\u00e9-\u65e5"), java.nio.charset.StandardCharsets.ISO_8859_1);
        assertEquals("d-\u00e9-\u65e5", k.key(Deliveries.of(utf8("{}"), "X-GitHub-Delivery", raw)));
        assertEquals("d-\u00e9-\u65e5", k.key(Deliveries.of(utf8("{}"), "X-GitHub-Delivery", "d-\u00e9-\u65e5")));
        assertEquals("caf\u00e9", k.key(Deliveries.of(utf8("{}"), "X-GitHub-Delivery", "caf\u00e9")));
    }

    @Test
    void pointerKeyTakesStringsAndNumbers() {
        FieldKey k = new FieldKey(new PointerField("/data/object/id"));
        assertEquals("ch_1", k.key(Deliveries.of(utf8("{\"data\":{\"object\":{\"id\":\"ch_1\"}}}"))));
        assertEquals("42", k.key(Deliveries.of(utf8("{\"data\":{\"object\":{\"id\":42}}}"))));
        assertEquals("/data/object/id", assertThrows(ApiProblem.class,
                () -> k.key(Deliveries.of(utf8("{\"data\":{}}")))).toProblem().errors().get(0).field());
        assertThrows(ApiProblem.class, () -> k.key(Deliveries.of(utf8("{\"data\":{\"object\":{\"id\":null}}}"))));
        assertThrows(ApiProblem.class, () -> k.key(Deliveries.of(utf8("{\"data\":{\"object\":{\"id\":{}}}}"))));
        assertThrows(ApiProblem.class, () -> k.key(Deliveries.of(utf8("id=1"))));
    }

    @Test
    void partitionFromAPointerMustBeAValidName() {
        PartitionSelector p = PartitionSelector.from(new PointerField("/tenant"));
        assertEquals("acme", p.partition(Deliveries.of(utf8("{\"tenant\":\"acme\"}"))));
        assertThrows(ApiProblem.class, () -> p.partition(Deliveries.of(utf8("{\"tenant\":\"a/b\"}"))));
        assertThrows(ApiProblem.class, () -> p.partition(Deliveries.of(utf8("{}"))));
        assertEquals("Default", PartitionSelector.fixed("Default").partition(Deliveries.of(utf8("x"))));
    }
}
