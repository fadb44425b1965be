package dev.exactly.naming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** Names.checkName agrees with the documented rule, {@link Names#NAME}, character for character. */
class NamesTest {

    @Test
    void acceptsExactlyWhatThePatternAccepts() {
        Random r = new Random(7);
        String alphabet = "azAZ09._:-/ \u00e9\u0000\ud83d\ude00+*aZ5";
        for (int n = 0; n < 20_000; n++) {
            int len = r.nextInt(8) == 0 ? 1 + r.nextInt(3) : r.nextInt(300);
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < len; i++) {
                b.append(r.nextInt(8) == 0 ? alphabet.charAt(r.nextInt(alphabet.length()))
                        : "abcXYZ019._:-".charAt(r.nextInt(13)));
            }
            String name = b.toString();
            assertEquals(Names.NAME.matcher(name).matches(), Names.checkName(name) == null, name);
        }
    }

    @Test
    void edges() {
        assertNull(Names.checkName("a"));
        assertNull(Names.checkName("x".repeat(255)));
        assertNotNull(Names.checkName(""));
        assertNotNull(Names.checkName("x".repeat(256)));
        assertNotNull(Names.checkName("a b"));
        assertNotNull(Names.checkName("caf\u00e9"));
        // dot segments: a URL path cannot carry them (found by a new-user check: such a queue took
        // pushes but no /queues/{queue} route could reach it)
        assertNotNull(Names.checkName("."));
        assertNotNull(Names.checkName(".."));
        assertNull(Names.checkName("..."));
        assertNull(Names.checkName(".a"));
        assertEquals(false, Names.NAME.matcher("..").matches());
        assertEquals(true, Names.NAME.matcher("...").matches());
    }
}
