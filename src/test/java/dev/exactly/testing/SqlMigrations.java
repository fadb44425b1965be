package dev.exactly.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The migrations of the source tree's sql/ (the build ships them as db/migration, without
 * sql/citus): what a migrate call on an empty database must apply.
 */
public final class SqlMigrations {

    private static final Path SQL = Path.of("sql");

    private SqlMigrations() {
    }

    /**
     * @return the file names of the migrations in sql/ (versioned V… and repeatable R__…), sorted;
     *         Flyway's callbacks there (beforeValidate.sql) are not migrations
     */
    public static List<String> files() {
        try (Stream<Path> s = Files.list(SQL)) {
            return s.filter(Files::isRegularFile).map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".sql") && (n.startsWith("V") || n.startsWith("R__"))).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the highest version among the versioned migrations (V&lt;n&gt;__…), e.g. "19" */
    public static String latestVersion() {
        return Integer.toString(files().stream().filter(n -> n.startsWith("V"))
                .mapToInt(n -> Integer.parseInt(n.substring(1, n.indexOf("__")))).max().orElseThrow());
    }
}
