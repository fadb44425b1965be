package dev.exactly.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.LogCapture;
import dev.exactly.testing.TestDatabase;
import io.quarkus.test.junit.QuarkusTest;
import java.util.List;
import java.util.logging.Level;
import org.jboss.logmanager.ExtLogRecord;
import org.junit.jupiter.api.Test;

/**
 * What an operator reads while the schema is created on a fresh database, with the service's log
 * settings (application.properties): Flyway's progress lines, and not the database's notices for
 * the DROP FUNCTION IF EXISTS of former signatures in sql/R__*.sql ("DB: function ... does not
 * exist, skipping"), which Flyway logs at INFO and which read like failures.
 */
@QuarkusTest
class MigrationLogTest {

    @Test
    void aFreshDatabaseIsMigratedWithoutTheDatabasesNoticesInTheLog() {
        List<ExtLogRecord> records;
        try (LogCapture capture = LogCapture.open()) {
            TestDatabase.createMigratedDatabase();
            records = capture.records();
        }
        List<String> flyway = records.stream().filter(r -> r.getLoggerName().startsWith("org.flywaydb"))
                .filter(r -> r.getLevel().intValue() >= Level.INFO.intValue())
                .map(r -> r.getLevel() + " " + r.getLoggerName() + ": " + r.getFormattedMessage()).toList();
        assertTrue(flyway.stream().anyMatch(line -> line.contains("Successfully applied")), flyway.toString());
        assertEquals(List.of(), flyway.stream().filter(line -> line.contains("DB: ")).toList());
    }
}
