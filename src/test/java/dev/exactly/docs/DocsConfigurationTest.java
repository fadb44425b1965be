package dev.exactly.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md and the application name the same settings, with the same defaults: every
 * key of its tables exists (exactly.* in the application's @ConfigMapping interfaces, walked by
 * reflection; exactly.secrets.* in the Lambda shape's Secrets Manager config source, exactly.invoke.*
 * in its self-invocation's {@code @ConfigProperty} (both in src/lambda); quarkus.* in
 * the run-time config model Quarkus ships with each extension), every mapping key is in a table,
 * a documented default is the mapping's {@code @WithDefault} (or application.properties' value, or
 * Quarkus' own default), and a "(Lambda: x)" is the {@code %lambda.} override of
 * application.properties, which in turn are all documented.
 */
class DocsConfigurationTest {

    /** A documented row: the key (map names as *), its default cell and its Lambda override, if any. */
    record Documented(String key, String shown, String defaultValue, String lambda) {
    }

    /** A key of the application's mappings: its @WithDefault, if any. */
    record Mapped(String key, String defaultValue) {
    }

    private static final Pattern LAMBDA = Pattern.compile("^(.*?)\\s*\\(Lambda: ([^)]*)\\)$");
    private static final Path LAMBDA_SOURCES = Path.of("src", "lambda", "java");

    private static final Map<String, Documented> DOCUMENTED = new TreeMap<>();
    private static final Map<String, Mapped> MAPPED = new TreeMap<>();
    private static final Map<String, String> QUARKUS = new TreeMap<>();

    @BeforeAll
    static void read() throws Exception {
        for (List<String> row : Markdown.read("docs/configuration.md").tableRows("key")) {
            Documented d = documented(row);
            assertTrue(DOCUMENTED.put(d.key(), d) == null, "documented twice: " + d.shown());
        }
        assertTrue(DOCUMENTED.size() > 60, "the table reader finds the keys (" + DOCUMENTED.size() + ")");
        mappings();
        quarkusModel();
    }

    @Test
    void everyDocumentedExactlyKeyIsMappedAndEveryMappedKeyIsDocumented() {
        Set<String> documented = new TreeSet<>();
        DOCUMENTED.keySet().stream().filter(k -> k.startsWith("exactly.") && !k.startsWith("exactly.secrets.")
                && !k.startsWith("exactly.invoke.")).forEach(documented::add);
        Set<String> notMapped = new TreeSet<>(documented);
        notMapped.removeAll(MAPPED.keySet());
        Set<String> notDocumented = new TreeSet<>(MAPPED.keySet());
        notDocumented.removeAll(documented);
        assertEquals(Set.of(), notMapped, "keys docs/configuration.md names that no @ConfigMapping has");
        assertEquals(Set.of(), notDocumented, "@ConfigMapping keys missing from docs/configuration.md");
    }

    @Test
    void theLambdaInvokeKeysAreTheSelfInvocationsOwn() throws IOException {
        Set<String> declared = new TreeSet<>();
        Pattern property = Pattern.compile("@ConfigProperty\\(name = \"(exactly\\.invoke\\.[a-z.-]+)\"");
        try (var files = Files.walk(LAMBDA_SOURCES)) {
            for (Path f : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                Matcher m = property.matcher(Files.readString(f));
                while (m.find()) {
                    declared.add(m.group(1));
                }
            }
        }
        Set<String> documented = new TreeSet<>();
        DOCUMENTED.keySet().stream().filter(k -> k.startsWith("exactly.invoke.")).forEach(documented::add);
        assertEquals(declared, documented);
        assertTrue(declared.contains("exactly.invoke.endpoint"), "the self-invocation's keys are found: " + declared);
    }

    @Test
    void theLambdaSecretKeysAreTheConfigSourcesOwn() throws IOException {
        Set<String> declared = new TreeSet<>();
        Pattern constant = Pattern.compile("static final String \\w+ = \"(exactly\\.secrets\\.[a-z.-]+)\"");
        try (var files = Files.walk(LAMBDA_SOURCES)) {
            for (Path f : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                Matcher m = constant.matcher(Files.readString(f));
                while (m.find()) {
                    declared.add(m.group(1));
                }
            }
        }
        assertTrue(declared.contains("exactly.secrets.properties"), "the config source's keys are found: " + declared);
        Set<String> documented = new TreeSet<>();
        DOCUMENTED.keySet().stream().filter(k -> k.startsWith("exactly.secrets.")).forEach(documented::add);
        assertEquals(declared, documented);
    }

    @Test
    void everyDocumentedQuarkusKeyIsARunTimeKeyOfAnExtension() {
        Set<String> unknown = new TreeSet<>();
        DOCUMENTED.keySet().stream().filter(k -> k.startsWith("quarkus.") && !QUARKUS.containsKey(k)).forEach(unknown::add);
        assertEquals(Set.of(), unknown, "quarkus.* keys of docs/configuration.md that no extension reads at run time");
        Set<String> other = new TreeSet<>();
        DOCUMENTED.keySet().stream().filter(k -> !k.startsWith("quarkus.") && !k.startsWith("exactly.")).forEach(other::add);
        assertEquals(Set.of(), other, "keys that are neither the application's nor Quarkus'");
    }

    @Test
    void documentedDefaultsAreTheApplications() throws IOException {
        Properties app = applicationProperties();
        List<String> wrong = new ArrayList<>();
        int compared = 0;
        for (Documented d : DOCUMENTED.values()) {
            String actual;
            if (d.key().startsWith("quarkus.")) {
                actual = app.getProperty(d.key(), QUARKUS.get(d.key()));
            } else {
                Mapped m = MAPPED.get(d.key());
                actual = m == null ? null : m.defaultValue();
            }
            if (actual == null) {
                continue; // no default anywhere: the cell describes what happens instead (unset, the preset's, …)
            }
            compared++;
            if (!actual.equals(d.defaultValue())) {
                wrong.add(d.shown() + ": documented " + d.defaultValue() + ", the application's is " + actual);
            }
        }
        assertTrue(compared > 50, "defaults compared: " + compared);
        assertEquals(List.of(), wrong);
    }

    @Test
    void lambdaOverridesAreDocumentedAsTheyAreSet() throws IOException {
        Properties app = applicationProperties();
        Map<String, String> overrides = new TreeMap<>();
        for (String k : app.stringPropertyNames()) {
            if (k.startsWith("%lambda.")) {
                String key = k.substring("%lambda.".length());
                if (key.startsWith("exactly.") || DOCUMENTED.containsKey(key)) {
                    overrides.put(key, app.getProperty(k));
                }
            }
        }
        Map<String, String> documented = new TreeMap<>();
        DOCUMENTED.values().stream().filter(d -> d.lambda() != null).forEach(d -> documented.put(d.key(), d.lambda()));
        assertTrue(overrides.size() >= 8, "the Lambda overrides are found: " + overrides);
        assertEquals(overrides, documented, "(Lambda: …) in docs/configuration.md against %lambda. in application.properties");
    }

    /** The checker itself: a key no mapping has, and a wrong default, are caught. */
    @Test
    void theCheckerCatchesAMadeUpKeyAndAWrongDefault() {
        assertTrue(MAPPED.containsKey("exactly.push.max-items"));
        assertTrue(!MAPPED.containsKey("exactly.push.max-item"), "a misspelt key is not a mapping key");
        assertEquals("1000", MAPPED.get("exactly.push.max-items").defaultValue());
        Documented d = documented(List.of("`exactly.fusion.enabled`", "true (Lambda: false)", "…"));
        assertEquals("exactly.fusion.enabled", d.key());
        assertEquals("true", d.defaultValue());
        assertEquals("false", d.lambda());
        assertEquals("exactly.webhooks.sources.*.key.header",
                documented(List.of("`exactly.webhooks.sources.<name>.key.header`", "unset", "…")).key());
        assertTrue(MAPPED.containsKey("exactly.webhooks.sources.*.key.header"), "maps are walked");
        assertTrue(QUARKUS.containsKey("quarkus.log.category.*.level"), "Quarkus' map keys are normalised alike");
    }

    // --- reading ------------------------------------------------------------------------------

    private static Documented documented(List<String> row) {
        String shown = row.get(0).replace("`", "").strip();
        String key = normalise(shown);
        Matcher m = LAMBDA.matcher(row.get(1).strip());
        String main = m.matches() ? m.group(1) : row.get(1);
        String lambda = m.matches() ? m.group(2).replace("`", "").strip() : null;
        return new Documented(key, shown, main.replace("`", "").strip(), lambda);
    }

    /** Map keys, whatever their placeholder ({@code <name>}, {@code "categories"}), become *. */
    private static String normalise(String key) {
        return key.replaceAll("\"[^\"]*\"", "*").replaceAll("<[^>]*>", "*");
    }

    /** Every @ConfigMapping interface of the application (target/classes), walked by reflection. */
    private static void mappings() throws Exception {
        Path classes = Path.of("target", "classes");
        int found = 0;
        try (Stream<Path> s = Files.walk(classes)) {
            for (Path p : s.filter(f -> f.toString().endsWith(".class")).toList()) {
                String name = classes.relativize(p).toString().replace('/', '.').replaceAll("\\.class$", "");
                if (!name.startsWith("dev.exactly.") || name.contains("$$")) {
                    continue;
                }
                Class<?> c = Class.forName(name, false, DocsConfigurationTest.class.getClassLoader());
                ConfigMapping m = c.getAnnotation(ConfigMapping.class);
                if (m != null) {
                    found++;
                    walk(c, m.prefix());
                }
            }
        }
        assertTrue(found >= 8, "the application's @ConfigMapping interfaces are found (" + found + ")");
    }

    private static void walk(Class<?> type, String prefix) {
        for (Method method : type.getMethods()) {
            if (method.getParameterCount() > 0 || Modifier.isStatic(method.getModifiers()) || method.isDefault()) {
                continue;
            }
            WithName w = method.getAnnotation(WithName.class);
            String key = method.isAnnotationPresent(io.smallrye.config.WithParentName.class) ? prefix
                    : prefix + "." + (w != null ? w.value() : kebab(method.getName()));
            Class<?> r = method.getReturnType();
            if (Map.class.isAssignableFrom(r)) {
                Type value = ((ParameterizedType) method.getGenericReturnType()).getActualTypeArguments()[1];
                if (value instanceof Class<?> v && v.isInterface() && v.getName().startsWith("dev.exactly.")) {
                    walk(v, key + ".*");
                } else {
                    MAPPED.put(key + ".*", new Mapped(key + ".*", null));
                }
            } else if (r.isInterface() && r.getName().startsWith("dev.exactly.")) {
                walk(r, key);
            } else {
                WithDefault d = method.getAnnotation(WithDefault.class);
                MAPPED.put(key, new Mapped(key, d == null ? null : d.value()));
            }
        }
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }

    /** The run-time keys of every Quarkus extension on the classpath, with their defaults, from its shipped config model. */
    private static void quarkusModel() throws IOException {
        ObjectMapper json = new ObjectMapper();
        int models = 0;
        for (URL u : Collections.list(DocsConfigurationTest.class.getClassLoader()
                .getResources("META-INF/quarkus-config-doc/quarkus-config-model.json"))) {
            models++;
            try (InputStream in = u.openStream()) {
                collect(json.readTree(in));
            }
        }
        assertTrue(models > 5, "the Quarkus config models are on the test classpath");
    }

    private static void collect(JsonNode node) {
        if (node.isObject()) {
            JsonNode path = node.get("path");
            JsonNode phase = node.get("phase");
            if (path != null && path.has("property") && phase != null && "RUN_TIME".equals(phase.asText())) {
                JsonNode d = node.get("defaultValue");
                QUARKUS.put(normalise(path.get("property").asText()), d == null ? null : d.asText());
            }
            node.forEach(DocsConfigurationTest::collect);
        } else if (node.isArray()) {
            node.forEach(DocsConfigurationTest::collect);
        }
    }

    private static Properties applicationProperties() throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(Path.of("src", "main", "resources", "application.properties"), StandardCharsets.UTF_8)) {
            p.load(r);
        }
        return p;
    }
}
