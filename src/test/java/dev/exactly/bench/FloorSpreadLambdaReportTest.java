package dev.exactly.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How the report names the JDK the Lambda package ran on (its Lambda cold start section). */
class FloorSpreadLambdaReportTest {

    @Test
    void theJdkIsNamedByItsReleaseFile(@TempDir Path home) throws Exception {
        Files.writeString(home.resolve("release"), "IMPLEMENTOR=\"Eclipse Adoptium\"\nJAVA_VERSION=\"25.0.3\"\n");
        assertEquals("Java 25.0.3", FloorSpreadLambdaReport.jdk(home));
    }

    @Test
    void aJdkWithoutAReleaseFileIsUnknown(@TempDir Path home) {
        assertEquals("an unknown Java", FloorSpreadLambdaReport.jdk(home));
    }

    @Test
    void thisJvmsHomeHasAVersion() {
        String named = FloorSpreadLambdaReport.jdk(Path.of(System.getProperty("java.home")));
        assertTrue(named.startsWith("Java " + Runtime.version().feature()), named);
    }
}
