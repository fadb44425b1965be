package dev.exactly.build;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarInputStream;
import java.util.jar.Manifest;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LibraryMerge} against the JDK's own class loader: a {@link URLClassLoader} over the
 * merged jar finds what one over the original jars (in the runtime's order) finds, for classes,
 * resources, multi-release entries and service files; package attributes, relocated duplicates,
 * the refusals and a rewrite of a whole deployment package. FunctionZipIT checks the same on the
 * real function.zip.
 */
@Tag("lambda")
class LibraryMergeTest {

    @TempDir
    Path dir;

    @Test
    void theMergedJarAnswersEveryLookupAsTheJarsInTheirOrderDid() throws IOException {
        Map<String, byte[]> jars = fixture();
        byte[] merged = LibraryMerge.merge(jars);
        List<URL> originals = new ArrayList<>();
        for (String name : new java.util.TreeMap<>(jars).keySet()) {
            originals.add(write(name, jars.get(name)).toUri().toURL());
        }
        Path mergedJar = write("merged.jar", merged);
        try (URLClassLoader before = new URLClassLoader(originals.toArray(URL[]::new), null);
             URLClassLoader after = new URLClassLoader(new URL[] {mergedJar.toUri().toURL()}, null)) {
            for (String name : List.of("com/x/A.class", "com/y/B.class", "com/z/C.class", "res.txt", "META-INF/LICENSE",
                    "only-c.txt")) {
                assertArrayEquals(read(before, name), read(after, name), name);
            }
            // what the runtime's order and multi-release rules give
            assertEquals("A from a", text(read(after, "com/x/A.class")), "the first jar wins; b's versioned A shadowed nothing of a's");
            assertEquals("B 11", text(read(after, "com/y/B.class")), "b's versioned B shadows b's own B");
            assertEquals("C base", text(read(after, "com/z/C.class")), "c is not multi-release: its versions/ entry is a plain resource");
            assertEquals(lines(before, "META-INF/services/svc"), lines(after, "META-INF/services/svc"));
            assertEquals(List.of("impl.A", "impl.B"), lines(after, "META-INF/services/svc"));
        }
        try (JarInputStream in = new JarInputStream(new ByteArrayInputStream(merged))) {
            Manifest m = in.getManifest();
            assertEquals("true", m.getMainAttributes().getValue(Attributes.Name.MULTI_RELEASE));
            assertNull(m.getMainAttributes().getValue(Attributes.Name.IMPLEMENTATION_VERSION));
            assertEquals("1.0", m.getAttributes("com/x/").getValue(Attributes.Name.IMPLEMENTATION_VERSION), "a's package");
            assertEquals("2.0", m.getAttributes("com/y/").getValue(Attributes.Name.IMPLEMENTATION_VERSION), "b's package");
            assertEquals("b", m.getAttributes("com/y/").getValue(Attributes.Name.IMPLEMENTATION_TITLE));
            assertNull(m.getAttributes("com/z/"), "c's manifest has no package attributes");
        }
        Map<String, byte[]> entries = entries(merged);
        assertEquals("license b", text(entries.get(LibraryMerge.RELOCATED + "b-lib.jar/META-INF/LICENSE")), "a losing duplicate is kept aside");
        assertEquals("A from b", text(entries.get(LibraryMerge.RELOCATED + "b-lib.jar/com/x/A.class")));
        assertEquals("A 11 from b", text(entries.get(LibraryMerge.RELOCATED + "b-lib.jar/META-INF/versions/11/com/x/A.class")));
        // the one lookup that changes: c's versions/ entry by its literal name (in a multi-release
        // jar it would shadow com/z/C.class), which nothing asks for
        assertNull(entries.get("META-INF/versions/11/com/z/C.class"));
        assertEquals("C 11 (a resource)", text(entries.get(LibraryMerge.RELOCATED + "c-lib.jar/META-INF/versions/11/com/z/C.class")));
        assertTrue(entries.containsKey(LibraryMerge.RELOCATED + "b-lib.jar/META-INF/MANIFEST.MF"));
        assertEquals("a-lib.jar\nb-lib.jar\nc-lib.jar\n", text(entries.get(LibraryMerge.LIBRARIES)));
    }

    @Test
    void aSignedJarOrAClassPathToAnotherJarStopsTheBuild() throws IOException {
        Map<String, byte[]> signed = new LinkedHashMap<>(fixture());
        signed.put("d-signed.jar", jar(null, Map.of("META-INF/SIGNER.SF", "x", "d/D.class", "d")));
        IOException e = assertThrows(IOException.class, () -> LibraryMerge.merge(signed));
        assertTrue(e.getMessage().contains("d-signed.jar is signed"), e.getMessage());

        Map<String, byte[]> classPath = new LinkedHashMap<>(fixture());
        Manifest m = new Manifest();
        m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        m.getMainAttributes().put(Attributes.Name.CLASS_PATH, "absent.jar a-lib.jar");
        classPath.put("e-cp.jar", jar(m, Map.of("e/E.class", "e")));
        e = assertThrows(IOException.class, () -> LibraryMerge.merge(classPath));
        assertTrue(e.getMessage().contains("names a-lib.jar in its Class-Path"), e.getMessage());

        Map<String, byte[]> absent = new LinkedHashMap<>(fixture());
        absent.put("e-cp.jar", jar(withClassPath("absent.jar"), Map.of("e/E.class", "e")));
        LibraryMerge.merge(absent); // a Class-Path naming no jar of lib/ changed nothing before either
    }

    @Test
    void aDeploymentPackageGetsOneJarInLibAndKeepsTheRestOnceMerged() throws IOException {
        Path zip = dir.resolve("function.zip");
        try (ZipOutputStream z = new ZipOutputStream(Files.newOutputStream(zip))) {
            put(z, "dev/exactly/App.class", "app".getBytes(StandardCharsets.UTF_8));
            put(z, "db/migration/V1__x.sql", "select 1;".getBytes(StandardCharsets.UTF_8));
            for (Map.Entry<String, byte[]> j : fixture().entrySet()) {
                put(z, "lib/" + j.getKey(), j.getValue());
            }
            put(z, "lib/nested/not-on-the-class-path.jar", jar(null, Map.of("n/N.class", "n")));
        }
        assertEquals(3, LibraryMerge.rewrite(zip));
        try (ZipFile f = new ZipFile(zip.toFile())) {
            List<String> names = Collections.list(f.entries()).stream().map(ZipEntry::getName).toList();
            assertEquals(List.of("dev/exactly/App.class", "db/migration/V1__x.sql", "lib/nested/not-on-the-class-path.jar",
                    LibraryMerge.MERGED), names);
            assertEquals("select 1;", new String(f.getInputStream(f.getEntry("db/migration/V1__x.sql")).readAllBytes(),
                    StandardCharsets.UTF_8));
        }
        assertEquals(0, LibraryMerge.rewrite(zip), "a merged package is left as it is");
    }

    // --- fixture -------------------------------------------------------------------------------

    /** a: plain; b: multi-release, duplicates some of a; c: plain, with a versions/ directory of its own. */
    private static Map<String, byte[]> fixture() throws IOException {
        Map<String, byte[]> jars = new LinkedHashMap<>();
        // given out of order: the merge takes them in String order of their names, as the runtime does
        jars.put("c-lib.jar", jar(null, ordered("com/z/C.class", "C base", "META-INF/versions/11/com/z/C.class", "C 11 (a resource)",
                "only-c.txt", "c")));
        jars.put("a-lib.jar", jar(manifest("a", "1.0", false), ordered("com/x/", "", "com/x/A.class", "A from a",
                "META-INF/services/svc", "impl.A", "META-INF/LICENSE", "license a", "res.txt", "a")));
        jars.put("b-lib.jar", jar(manifest("b", "2.0", true), ordered("com/x/A.class", "A from b", "com/y/B.class", "B base",
                "META-INF/versions/11/com/y/B.class", "B 11", "META-INF/versions/11/com/x/A.class", "A 11 from b",
                "META-INF/services/svc", "impl.B\n", "META-INF/LICENSE", "license b", "res.txt", "b")));
        return jars;
    }

    private static Map<String, String> ordered(String... nameThenContent) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < nameThenContent.length; i += 2) {
            m.put(nameThenContent[i], nameThenContent[i + 1]);
        }
        return m;
    }

    private static Manifest manifest(String title, String version, boolean multiRelease) {
        Manifest m = new Manifest();
        m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        m.getMainAttributes().put(Attributes.Name.IMPLEMENTATION_TITLE, title);
        m.getMainAttributes().put(Attributes.Name.IMPLEMENTATION_VERSION, version);
        if (multiRelease) {
            m.getMainAttributes().put(Attributes.Name.MULTI_RELEASE, "true");
        }
        return m;
    }

    private static Manifest withClassPath(String classPath) {
        Manifest m = new Manifest();
        m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        m.getMainAttributes().put(Attributes.Name.CLASS_PATH, classPath);
        return m;
    }

    private static byte[] jar(Manifest manifest, Map<String, String> entries) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (ZipOutputStream z = new ZipOutputStream(b)) {
            if (manifest != null) {
                z.putNextEntry(new ZipEntry("META-INF/MANIFEST.MF"));
                manifest.write(z);
                z.closeEntry();
            }
            for (Map.Entry<String, String> e : entries.entrySet()) {
                put(z, e.getKey(), e.getValue().getBytes(StandardCharsets.UTF_8));
            }
        }
        return b.toByteArray();
    }

    private static void put(ZipOutputStream z, String name, byte[] content) throws IOException {
        z.putNextEntry(new ZipEntry(name));
        z.write(content);
        z.closeEntry();
    }

    private Path write(String name, byte[] content) throws IOException {
        Path p = dir.resolve(name);
        Files.write(p, content);
        return p;
    }

    private static byte[] read(ClassLoader loader, String name) throws IOException {
        try (InputStream in = loader.getResourceAsStream(name)) {
            return in == null ? null : in.readAllBytes();
        }
    }

    private static List<String> lines(ClassLoader loader, String name) throws IOException {
        List<String> out = new ArrayList<>();
        for (URL u : Collections.list(loader.getResources(name))) {
            try (InputStream in = u.openStream()) {
                new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().filter(l -> !l.isBlank()).forEach(out::add);
            }
        }
        return out;
    }

    private static Map<String, byte[]> entries(byte[] jar) throws IOException {
        Map<String, byte[]> out = new LinkedHashMap<>();
        try (java.util.zip.ZipInputStream z = new java.util.zip.ZipInputStream(new ByteArrayInputStream(jar))) {
            for (ZipEntry e = z.getNextEntry(); e != null; e = z.getNextEntry()) {
                out.put(e.getName(), z.readAllBytes());
            }
        }
        return out;
    }

    private static String text(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }
}
