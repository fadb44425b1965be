package dev.exactly.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.TestDatabase;
import io.quarkus.test.junit.QuarkusTest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.logging.Level;
import org.jboss.logmanager.ExtHandler;
import org.jboss.logmanager.ExtLogRecord;
import org.jboss.logmanager.LogContext;
import org.jboss.logmanager.Logger;
import org.junit.jupiter.api.Test;

/**
 * What an operator reads while the schema is created on a fresh database, with the service's log
 * settings (application.properties): Flyway's progress lines, and not the database's notices for
 * the DROP FUNCTION IF EXISTS of former signatures in sql/R__*.sql ("DB: function ... does not
 * exist, skipping"), which Flyway logs at INFO and which read like failures.
 */
@QuarkusTest
class MigrationLogTest {

    /** Keeps every record that reaches the root logger. */
    static final class Capture extends ExtHandler {
        final List<ExtLogRecord> records = Collections.synchronizedList(new ArrayList<>());

        @Override
        protected void doPublish(ExtLogRecord record) {
            records.add(record);
        }
    }

    @Test
    void aFreshDatabaseIsMigratedWithoutTheDatabasesNoticesInTheLog() {
        Logger root = LogContext.getLogContext().getLogger("");
        Capture capture = new Capture();
        capture.setLevel(Level.ALL);
        root.addHandler(capture);
        try {
            TestDatabase.createMigratedDatabase();
        } finally {
            root.removeHandler(capture);
        }
        List<String> flyway;
        synchronized (capture.records) {
            flyway = capture.records.stream().filter(r -> r.getLoggerName().startsWith("org.flywaydb"))
                    .filter(r -> r.getLevel().intValue() >= Level.INFO.intValue())
                    .map(r -> r.getLevel() + " " + r.getLoggerName() + ": " + r.getFormattedMessage()).toList();
        }
        assertTrue(flyway.stream().anyMatch(line -> line.contains("Successfully applied")), flyway.toString());
        assertEquals(List.of(), flyway.stream().filter(line -> line.contains("DB: ")).toList());
    }
}
