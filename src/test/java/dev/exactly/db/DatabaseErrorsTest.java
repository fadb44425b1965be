package dev.exactly.db;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * How a JDBC failure of Flyway (the migrate call) is classified. The reactive client's failures
 * are exercised against a real PostgreSQL by the outage tests (ConnectionFaultsTest,
 * DatabaseOutageHttpTest, ReadinessAfterOutageTest).
 */
class DatabaseErrorsTest {

    @Test
    void aJdbcConnectionExceptionIsTransientUnavailability() {
        // what Flyway reported for a pooled JDBC connection a database restart had closed
        Throwable flyway = new RuntimeException("Unable to read database connection metadata",
                new SQLException("This connection has been closed.", "08003"));
        assertInstanceOf(StoreUnavailableException.class, DatabaseErrors.classify(flyway));
        assertInstanceOf(StoreUnavailableException.class,
                DatabaseErrors.classify(new RuntimeException(new SQLException("the database system is shutting down", "57P03"))));
    }

    @Test
    void anotherJdbcFailureStaysWhatItIs() {
        Throwable bad = new RuntimeException("migration failed", new SQLException("syntax error", "42601"));
        assertSame(bad, DatabaseErrors.classify(bad));
    }
}
