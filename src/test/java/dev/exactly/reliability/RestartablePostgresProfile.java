package dev.exactly.reliability;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/**
 * Points the application under test at a database of its own on {@link RestartablePostgres}
 * (which the tests stop, crash and restart), with short session limits so that timeouts show
 * within a short run: lock_timeout 1 s, statement_timeout 5 s; and Agroal's background
 * validation of idle JDBC connections every second (its default is 2 min), so that what it does
 * after an outage shows too. The application migrates the database at start-up.
 */
public class RestartablePostgresProfile implements QuarkusTestProfile {

    /** The application's database. */
    public static final String DATABASE = "faults_http";

    /** lock_timeout of the application's sessions, in ms. */
    public static final int LOCK_TIMEOUT_MS = 1000;

    /** How often Agroal validates idle connections of the JDBC datasource here. */
    public static final java.time.Duration VALIDATION_INTERVAL = java.time.Duration.ofSeconds(1);

    @Override
    public Map<String, String> getConfigOverrides() {
        Map<String, String> settings = RestartablePostgres.shared().datasourceOf(DATABASE);
        settings.put("exactly.database.lock-timeout-ms", Integer.toString(LOCK_TIMEOUT_MS));
        settings.put("exactly.database.statement-timeout-ms", "5000");
        settings.put("quarkus.datasource.jdbc.background-validation-interval", VALIDATION_INTERVAL.toSeconds() + "S");
        return settings;
    }
}
