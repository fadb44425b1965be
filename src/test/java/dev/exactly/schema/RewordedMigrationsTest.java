package dev.exactly.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.exactly.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.exception.FlywayValidateException;
import org.junit.jupiter.api.Test;

/**
 * sql/beforeValidate.sql, with plain Flyway configured as both shapes configure theirs: a database
 * whose history holds the released checksums of the three migrations whose comments were reworded
 * migrates and validates again, and is left with the current checksums; any other checksum is still
 * refused. MigrationResourceTest checks the same through the server shape's quarkus-flyway.
 */
class RewordedMigrationsTest {

    /** version → {released checksum, current checksum}, as sql/beforeValidate.sql lists them. */
    static final Map<String, int[]> REWORDED = new LinkedHashMap<>();

    static {
        REWORDED.put("3", new int[] {-333249916, 986413951});
        REWORDED.put("14", new int[] {973228111, 761314811});
        REWORDED.put("17", new int[] {1384357703, 2125933938});
    }

    @Test
    void aNewDatabaseRecordsTheCurrentChecksums() throws SQLException {
        String db = TestDatabase.createMigratedDatabase();
        for (Map.Entry<String, int[]> e : REWORDED.entrySet()) {
            assertEquals(e.getValue()[1], checksum(db, e.getKey()), "V" + e.getKey());
        }
    }

    @Test
    void aDatabaseMigratedWithTheReleasedTextsMigratesAndValidatesAgain() throws SQLException {
        String db = TestDatabase.createMigratedDatabase();
        for (Map.Entry<String, int[]> e : REWORDED.entrySet()) {
            setChecksum(db, e.getKey(), e.getValue()[0]);
        }
        flyway(db).migrate();
        flyway(db).validate();
        for (Map.Entry<String, int[]> e : REWORDED.entrySet()) {
            assertEquals(e.getValue()[1], checksum(db, e.getKey()), "V" + e.getKey());
        }
    }

    @Test
    void anyOtherChecksumIsStillRefused() throws SQLException {
        String db = TestDatabase.createMigratedDatabase();
        setChecksum(db, "3", 12345);
        assertThrows(FlywayValidateException.class, () -> flyway(db).migrate());
        assertEquals(12345, checksum(db, "3"));
    }

    /** The service's Flyway settings (quarkus.flyway.* and OnDemandFlyway). */
    static Flyway flyway(String db) {
        return Flyway.configure().dataSource(TestDatabase.jdbcUrl(db), "postgres", "")
                .schemas("exactly").defaultSchema("exactly").createSchemas(true)
                .locations("classpath:db/migration").load();
    }

    static int checksum(String db, String version) throws SQLException {
        try (Connection c = DriverManager.getConnection(TestDatabase.jdbcUrl(db), "postgres", "");
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT checksum FROM exactly.flyway_schema_history WHERE version = '" + version + "'")) {
            r.next();
            return r.getInt(1);
        }
    }

    static void setChecksum(String db, String version, int checksum) throws SQLException {
        try (Connection c = DriverManager.getConnection(TestDatabase.jdbcUrl(db), "postgres", "");
                Statement s = c.createStatement()) {
            assertEquals(1, s.executeUpdate("UPDATE exactly.flyway_schema_history SET checksum = " + checksum
                    + " WHERE version = '" + version + "'"));
        }
    }
}
