package dev.exactly.citus;

import dev.exactly.testing.AppDatabase;
import io.quarkus.test.junit.QuarkusTest;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * {@link EveryRouteSql} on the tests' PostgreSQL: the walk that the Citus suite runs on a cluster
 * ({@link EveryRouteSqlCitusTest}) is kept complete here, in CI. Function statistics are turned on
 * for the tests' server while it runs (track_functions = pl, set back after).
 */
@QuarkusTest
class EveryRouteSqlTest extends EveryRouteSql {

    @BeforeAll
    static void trackFunctions() throws Exception {
        setTrackFunctions("pl");
    }

    @AfterAll
    static void stopTracking() throws Exception {
        setTrackFunctions(null);
    }

    private static void setTrackFunctions(String value) throws Exception {
        try (Connection c = AppDatabase.connect(); Statement s = c.createStatement()) {
            s.execute(value == null ? "ALTER SYSTEM RESET track_functions" : "ALTER SYSTEM SET track_functions = '" + value + "'");
            s.execute("SELECT pg_reload_conf()");
        }
        Thread.sleep(200); // every backend re-reads the configuration before its next statement
    }

    @Override
    Map<String, Long> functionCalls() throws Exception {
        try (Connection c = AppDatabase.connect()) {
            return RouteSql.calls(c);
        }
    }
}
