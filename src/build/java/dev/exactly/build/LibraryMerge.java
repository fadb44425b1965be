package dev.exactly.build;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;

/**
 * Rewrites a Lambda deployment package (Quarkus' {@code target/function.zip}) so that its
 * {@code lib/} holds one jar, the merge of all its jars, instead of one jar per dependency.
 *
 * <p>Why: the AWS Lambda Java runtime loads a function with a {@code URLClassLoader} whose
 * class path is the task root, then every {@code lib/*.jar} in lexical order (the runtime
 * interface client's {@code CustomerClassLoader}). Each class of a dependency is looked up jar by
 * jar until one has it, so a class in the 150th jar costs 150 lookups; with about 200 jars that
 * search is a large part of a cold start (BENCHMARKS.md, finding 16). One jar answers each lookup
 * at once.
 *
 * <p>The merge keeps what the class loader would have found, entry by entry:
 * <ul>
 * <li>the first jar in the runtime's order (String order of the file names) that holds a name
 * wins it, as its lookup would have; a later jar's copy of the same name is kept under
 * {@code META-INF/merged-libraries/<jar>/<name>}, where no lookup goes (licence and notice
 * files, duplicate {@code module-info.class} and the like stay in the package that way);</li>
 * <li>{@code META-INF/services/*} files are concatenated in that order, as {@code ServiceLoader}
 * reads every jar's copy;</li>
 * <li>multi-release jars (JAR File Specification, "Multi-release JAR files"): a versioned entry
 * {@code META-INF/versions/<n>/<name>} stays active only where its jar also wins the base name
 * (or no jar has it), so it shadows exactly what it shadowed before; the merged jar is
 * multi-release when one does. A jar that is not multi-release has its {@code META-INF/versions}
 * entries relocated: they were plain resources there, and at their own name in a multi-release jar
 * they would shadow classes (so a lookup of such a name itself, which nothing makes, is the one
 * that changes);</li>
 * <li>package metadata: each package's section of the merged manifest carries the
 * specification and implementation attributes (its own section's, else the main ones) of the first
 * jar in that order holding one of its classes, which is what {@code Package.getImplementationVersion()}
 * and the like read (only a package split over several jars could have been defined from another
 * of them before, by whichever of its classes loaded first);</li>
 * <li>each jar's manifest (and {@code META-INF/INDEX.LIST}) is kept relocated, and
 * {@value #LIBRARIES} lists the merged jars in order.</li>
 * </ul>
 * Refused, so the build stops: a signed jar (merging would void its signature) and a jar whose
 * manifest {@code Class-Path} names another jar of {@code lib/} (the class loader would have
 * searched that one next, out of lexical order). A package whose {@code lib/} holds no jar, or
 * only the merged one, is left as it is (a native build's zip, a second run), and a build that
 * wrote no package is not one.
 *
 * <p>Run by the lambda Maven profile after Quarkus has written function.zip, as a single-file
 * program: {@code java LibraryMerge.java target/function.zip}. JDK classes only.
 */
public final class LibraryMerge {

    /** The one jar the merged {@code lib/} holds. */
    public static final String MERGED = "lib/merged-libraries.jar";
    /** Where entries that lose to an earlier jar are kept. */
    public static final String RELOCATED = "META-INF/merged-libraries/";
    /** The merged jars' file names, one a line, in the order they were merged. */
    public static final String LIBRARIES = RELOCATED + "LIBRARIES";

    private static final String SERVICES = "META-INF/services/";
    private static final String VERSIONS = "META-INF/versions/";
    private static final List<Attributes.Name> PACKAGE_ATTRIBUTES = List.of(
            Attributes.Name.SPECIFICATION_TITLE, Attributes.Name.SPECIFICATION_VERSION, Attributes.Name.SPECIFICATION_VENDOR,
            Attributes.Name.IMPLEMENTATION_TITLE, Attributes.Name.IMPLEMENTATION_VERSION, Attributes.Name.IMPLEMENTATION_VENDOR,
            Attributes.Name.SEALED);

    private LibraryMerge() {
    }

    /**
     * @param args the deployment package to rewrite in place
     * @throws IOException when it cannot be read or written, or holds a jar that cannot be merged
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            throw new IllegalArgumentException("usage: java LibraryMerge.java target/function.zip");
        }
        Path zip = Path.of(args[0]);
        if (!Files.isRegularFile(zip)) {
            System.out.println("LibraryMerge: no " + zip + " (the build wrote no JVM package), nothing to merge");
            return;
        }
        int merged = rewrite(zip);
        System.out.println(merged == 0 ? "LibraryMerge: " + zip + " left as it is"
                : "LibraryMerge: " + zip + ": " + merged + " jars of lib/ merged into " + MERGED);
    }

    /**
     * Rewrites the package in place (through a temporary file beside it).
     *
     * @param zip the deployment package
     * @return how many jars were merged (0 when the package was left as it is)
     * @throws IOException when it cannot be read or written, or holds a jar that cannot be merged
     */
    public static int rewrite(Path zip) throws IOException {
        Path out = zip.resolveSibling(zip.getFileName() + ".merging");
        int merged;
        try (ZipFile in = new ZipFile(zip.toFile())) {
            List<String> jars = Collections.list(in.entries()).stream().map(ZipEntry::getName)
                    .filter(LibraryMerge::isLibraryJar).sorted().toList();
            if (jars.isEmpty() || jars.equals(List.of(MERGED))) {
                return 0;
            }
            Map<String, byte[]> contents = new LinkedHashMap<>();
            for (String jar : jars) {
                try (InputStream s = in.getInputStream(in.getEntry(jar))) {
                    contents.put(jar.substring("lib/".length()), s.readAllBytes());
                }
            }
            byte[] mergedJar = merge(contents);
            try (OutputStream file = Files.newOutputStream(out); ZipOutputStream z = new ZipOutputStream(file)) {
                for (ZipEntry e : Collections.list(in.entries())) {
                    if (isLibraryJar(e.getName())) {
                        continue;
                    }
                    ZipEntry copy = new ZipEntry(e.getName());
                    copy.setTime(e.getTime());
                    z.putNextEntry(copy);
                    if (!e.isDirectory()) {
                        try (InputStream s = in.getInputStream(e)) {
                            s.transferTo(z);
                        }
                    }
                    z.closeEntry();
                }
                ZipEntry lib = new ZipEntry(MERGED);
                lib.setTime(in.getEntry(jars.get(0)).getTime());
                z.putNextEntry(lib);
                z.write(mergedJar);
                z.closeEntry();
            }
            merged = jars.size();
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(out);
            throw e;
        }
        Files.move(out, zip, StandardCopyOption.REPLACE_EXISTING);
        return merged;
    }

    /** A jar the runtime puts on the class path: a file directly in lib/ whose name ends with .jar. */
    static boolean isLibraryJar(String name) {
        return name.startsWith("lib/") && name.endsWith(".jar") && name.indexOf('/', 4) < 0;
    }

    /**
     * Merges jars as the class loader would see them one after the other.
     *
     * @param jars file name to content, in any order (they are taken in String order of the names)
     * @return the merged jar
     * @throws IOException when a jar cannot be read, is signed, or names another of them in its Class-Path
     */
    public static byte[] merge(Map<String, byte[]> jars) throws IOException {
        List<Library> libraries = new ArrayList<>();
        for (String name : new TreeMap<>(jars).keySet()) {
            libraries.add(Library.read(name, jars.get(name), jars.keySet()));
        }
        Map<String, Library> baseOwner = new HashMap<>();
        for (Library l : libraries) {
            for (String n : l.entries.keySet()) {
                if (!n.startsWith("META-INF/")) {
                    baseOwner.putIfAbsent(n, l);
                }
            }
        }
        Map<String, byte[]> out = new LinkedHashMap<>();
        Map<String, ByteArrayOutputStream> services = new LinkedHashMap<>();
        Map<String, Library> packageOwner = new LinkedHashMap<>();
        boolean multiRelease = false;
        for (Library l : libraries) {
            for (Map.Entry<String, byte[]> e : l.entries.entrySet()) {
                String name = e.getKey();
                byte[] bytes = e.getValue();
                if (name.endsWith("/")) {
                    out.putIfAbsent(name, bytes);
                } else if (name.startsWith(SERVICES) && name.indexOf('/', SERVICES.length()) < 0) {
                    ByteArrayOutputStream s = services.computeIfAbsent(name, k -> new ByteArrayOutputStream());
                    s.write(bytes);
                    if (bytes.length > 0 && bytes[bytes.length - 1] != '\n') {
                        s.write('\n');
                    }
                } else if (name.equals(JarFile.MANIFEST_NAME) || name.equals("META-INF/INDEX.LIST")) {
                    out.put(RELOCATED + l.name + "/" + name, bytes);
                } else if (name.startsWith(VERSIONS)) {
                    String base = versionedBase(name);
                    boolean active = l.multiRelease && base != null && !base.equals("module-info.class")
                            && (baseOwner.get(base) == l || baseOwner.get(base) == null) && !out.containsKey(name);
                    if (active) {
                        out.put(name, bytes);
                        multiRelease = true;
                    } else {
                        out.put(RELOCATED + l.name + "/" + name, bytes);
                    }
                } else if (!out.containsKey(name)) {
                    out.put(name, bytes);
                    if (name.endsWith(".class") && name.indexOf('/') > 0) {
                        packageOwner.putIfAbsent(name.substring(0, name.lastIndexOf('/') + 1), l);
                    }
                } else {
                    out.put(RELOCATED + l.name + "/" + name, bytes);
                }
            }
        }
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        if (multiRelease) {
            manifest.getMainAttributes().put(Attributes.Name.MULTI_RELEASE, "true");
        }
        manifest.getMainAttributes().putValue("Created-By", "dev.exactly.build.LibraryMerge");
        for (Map.Entry<String, Library> p : packageOwner.entrySet()) {
            Attributes a = p.getValue().packageAttributes(p.getKey());
            if (!a.isEmpty()) {
                manifest.getEntries().put(p.getKey(), a);
            }
        }
        ByteArrayOutputStream jar = new ByteArrayOutputStream();
        try (ZipOutputStream z = new ZipOutputStream(jar)) {
            z.putNextEntry(new ZipEntry("META-INF/"));
            z.closeEntry();
            z.putNextEntry(new ZipEntry(JarFile.MANIFEST_NAME));
            manifest.write(z);
            z.closeEntry();
            for (Map.Entry<String, byte[]> e : out.entrySet()) {
                if (e.getKey().equals("META-INF/")) {
                    continue;
                }
                z.putNextEntry(new ZipEntry(e.getKey()));
                z.write(e.getValue());
                z.closeEntry();
            }
            for (Map.Entry<String, ByteArrayOutputStream> s : services.entrySet()) {
                z.putNextEntry(new ZipEntry(s.getKey()));
                s.getValue().writeTo(z);
                z.closeEntry();
            }
            z.putNextEntry(new ZipEntry(LIBRARIES));
            for (Library l : libraries) {
                z.write((l.name + "\n").getBytes(StandardCharsets.UTF_8));
            }
            z.closeEntry();
        }
        return jar.toByteArray();
    }

    /** @return the name a versioned entry META-INF/versions/N/name stands for, or null when it is not one */
    static String versionedBase(String name) {
        int slash = name.indexOf('/', VERSIONS.length());
        if (slash < 0) {
            return null;
        }
        try {
            Integer.parseInt(name.substring(VERSIONS.length(), slash));
        } catch (NumberFormatException e) {
            return null;
        }
        String base = name.substring(slash + 1);
        return base.isEmpty() || base.startsWith("META-INF/") ? null : base;
    }

    /** One jar of lib/: its entries in order and its manifest. */
    private record Library(String name, Map<String, byte[]> entries, Manifest manifest, boolean multiRelease) {

        static Library read(String name, byte[] content, Set<String> siblings) throws IOException {
            Map<String, byte[]> entries = new LinkedHashMap<>();
            try (ZipInputStream z = new ZipInputStream(new ByteArrayInputStream(content))) {
                for (ZipEntry e = z.getNextEntry(); e != null; e = z.getNextEntry()) {
                    entries.putIfAbsent(e.getName(), e.isDirectory() ? new byte[0] : z.readAllBytes());
                }
            }
            for (String n : entries.keySet()) {
                String upper = n.toUpperCase(Locale.ROOT);
                if (upper.startsWith("META-INF/") && upper.indexOf('/', 9) < 0 && (upper.endsWith(".SF")
                        || upper.endsWith(".RSA") || upper.endsWith(".DSA") || upper.endsWith(".EC") || upper.startsWith("META-INF/SIG-"))) {
                    throw new IOException(name + " is signed (" + n + "): merging it would void its signature");
                }
            }
            byte[] mf = entries.get(JarFile.MANIFEST_NAME);
            Manifest manifest = mf == null ? new Manifest() : new Manifest(new ByteArrayInputStream(mf));
            String classPath = manifest.getMainAttributes().getValue(Attributes.Name.CLASS_PATH);
            if (classPath != null) {
                for (String ref : classPath.trim().split("\\s+")) {
                    if (siblings.contains(ref)) {
                        throw new IOException(name + " names " + ref + " in its Class-Path: the class loader would search it"
                                + " next, out of the lexical order a merge keeps");
                    }
                }
            }
            return new Library(name, entries, manifest, "true".equalsIgnoreCase(
                    manifest.getMainAttributes().getValue(Attributes.Name.MULTI_RELEASE)));
        }

        /** The package attributes a class loader would read for a package of this jar: its section, then its main ones. */
        Attributes packageAttributes(String packagePath) {
            Attributes section = manifest.getAttributes(packagePath);
            Attributes a = new Attributes();
            for (Attributes.Name n : PACKAGE_ATTRIBUTES) {
                String v = section != null ? section.getValue(n) : null;
                if (v == null) {
                    v = manifest.getMainAttributes().getValue(n);
                }
                if (v != null) {
                    a.put(n, v);
                }
            }
            return a;
        }
    }
}
