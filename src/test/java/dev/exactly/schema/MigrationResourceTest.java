package dev.exactly.schema;

import static dev.exactly.testing.Api.api;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.notNullValue;

import dev.exactly.testing.AppDatabase;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import org.junit.jupiter.api.Test;

/**
 * POST /api/v1/admin/migrate in the server shape (quarkus-flyway's Flyway, ManagedFlyway), against
 * a real PostgreSQL: the service migrated at start-up, so the call applies nothing and names the
 * schema's version. The Lambda shape's call (its Flyway made on demand) is LambdaApiTest's and
 * LambdaRuntimeIT's. Both admin calls take no fields: no body or {} runs them, and a field is
 * refused as unknown (a new-user check: {"x":1} ran maintenance with 200).
 */
@QuarkusTest
class MigrationResourceTest {

    @Test
    void migrateAfterTheStartAppliesNothing() {
        api().post("/api/v1/admin/migrate").then()
                .statusCode(200)
                .body("migrationsExecuted", equalTo(0))
                .body("schemaVersion", notNullValue());
    }

    /** sql/beforeValidate.sql runs under quarkus-flyway too (RewordedMigrationsTest has the rules). */
    @Test
    void aHistoryWithAReleasedChecksumOfARewordedMigrationStillMigrates() throws java.sql.SQLException {
        try (java.sql.Connection c = AppDatabase.connect(); java.sql.Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE exactly.flyway_schema_history SET checksum = -333249916 WHERE version = '3'");
        }
        api().post("/api/v1/admin/migrate").then().statusCode(200).body("migrationsExecuted", equalTo(0));
        try (java.sql.Connection c = AppDatabase.connect(); java.sql.Statement s = c.createStatement();
                java.sql.ResultSet r = s.executeQuery("SELECT checksum FROM exactly.flyway_schema_history WHERE version = '3'")) {
            r.next();
            org.junit.jupiter.api.Assertions.assertEquals(986413951, r.getInt(1));
        }
    }

    @Test
    void theAdminCallsTakeNoBodyOrAnEmptyObjectAndRefuseAField() {
        for (String path : new String[] {"/api/v1/admin/migrate", "/api/v1/admin/maintenance"}) {
            api().post(path).then().statusCode(200);
            api().contentType(ContentType.JSON).body(" {} ").post(path).then().statusCode(200);
            api().contentType(ContentType.JSON).body("{\"x\":1}").post(path).then()
                    .statusCode(400).contentType("application/problem+json")
                    .body("errors[0].field", equalTo("x")).body("errors[0].message", equalTo("unknown field"));
            api().contentType(ContentType.JSON).body("[").post(path).then()
                    .statusCode(400).contentType("application/problem+json");
        }
    }
}
