package dev.exactly.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class TransactionHashTest {

    @Test
    void emptyInputMatchesTheXxh3128ReferenceVectorInCanonicalForm() {
        // XXH3_128bits("") from the xxHash reference implementation, canonical (big-endian) form.
        assertEquals("99aa06d3014798d86001c324468d497f", HexFormat.of().formatHex(TransactionHash.of("")));
    }

    @Test
    void isSixteenBytesAndDeterministic() {
        byte[] a = TransactionHash.of("order-42");
        assertEquals(16, a.length);
        assertArrayEquals(a, TransactionHash.of("order-42"));
    }

    @Test
    void comparesUtf8BytesWithoutNormalisation() {
        // "é" precomposed (U+00E9) and decomposed (e + U+0301) look alike but are different ids.
        assertFalse(Arrays.equals(TransactionHash.of("caf\u00e9"), TransactionHash.of("cafe\u0301")));
    }
}
