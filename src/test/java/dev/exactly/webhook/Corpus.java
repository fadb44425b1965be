package dev.exactly.webhook;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The shared webhook corpus, ../shared/corpus relative to the project directory (CI clones the
 * repository with a copy of shared/ beside it). Tests that need it are skipped when it is absent.
 */
final class Corpus {

    static final Path DIR = Path.of("..", "shared", "corpus");
    static final Path DELIVERIES = DIR.resolve("github-deliveries.jsonl");
    static final Path EXPECTED = DIR.resolve("github-deliveries.expected.json");

    /** The corpus secret (see its README). */
    static final String SECRET = "exactly-corpus-secret";

    private Corpus() {
    }

    /** Skips the calling test when the corpus is not there. */
    static void assumePresent() {
        assumeTrue(Files.isRegularFile(DELIVERIES) && Files.isRegularFile(EXPECTED),
                "webhook corpus not found at " + DIR.toAbsolutePath().normalize());
    }
}
