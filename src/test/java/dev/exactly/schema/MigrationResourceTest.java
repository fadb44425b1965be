package dev.exactly.schema;

import static dev.exactly.testing.Api.api;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.notNullValue;

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
