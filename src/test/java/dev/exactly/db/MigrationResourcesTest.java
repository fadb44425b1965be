package dev.exactly.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Flyway's location (classpath db/migration, where the build puts sql/) holds only what Flyway
 * runs: the migrations (V&lt;n&gt;__… and R__… files) and its callback beforeValidate.sql. Flyway scans the location's subfolders and reports any
 * other .sql file at every start ("SQL migrations were detected but not run"), so
 * sql/citus/distribute.sql stays out of it, while the Citus harness still finds it in the source
 * tree.
 */
class MigrationResourcesTest {

    private static final Pattern MIGRATION = Pattern.compile("(V[0-9]+|R)__[A-Za-z0-9_]+\\.sql|beforeValidate\\.sql");

    @Test
    void flywaysLocationHoldsOnlyMigrations() throws Exception {
        URL location = getClass().getClassLoader().getResource("db/migration");
        assertTrue(location != null && "file".equals(location.getProtocol()), "db/migration on the test class path: " + location);
        List<String> others;
        try (Stream<Path> files = Files.walk(Path.of(location.toURI()))) {
            others = files.filter(Files::isRegularFile).map(Path::getFileName).map(Path::toString)
                    .filter(n -> !MIGRATION.matcher(n).matches()).toList();
        }
        assertEquals(List.of(), others, "files in Flyway's location that are not migrations");
        assertNull(getClass().getClassLoader().getResource("db/migration/citus/distribute.sql"));
        assertTrue(Files.isRegularFile(Path.of("sql", "citus", "distribute.sql")), "the Citus step stays in the source tree");
    }
}
