package dev.exactly.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.engine.cache.SortedRuns;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** A smoke run of {@link CacheBatchLookupAB}: this build against itself, one small cell. */
class CacheBatchLookupABTest {

    @Test
    void anAbOfThisBuildAgainstItselfPrintsOneRowPerCell() throws Throwable {
        Path classes = Path.of(SortedRuns.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        PrintStream out = System.out;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            CacheBatchLookupAB.main(new String[] {classes.toString(), "5000", "2,50", "1"});
        } finally {
            System.setOut(out);
        }
        String text = printed.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("5000 2 |") && text.contains("5000 50 |"), text);
    }
}
