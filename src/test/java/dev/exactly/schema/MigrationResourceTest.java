package dev.exactly.schema;

import static dev.exactly.testing.Api.api;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.notNullValue;

import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

/**
 * POST /api/v1/admin/migrate in the server shape (quarkus-flyway's Flyway, ManagedFlyway), against
 * a real PostgreSQL: the service migrated at start-up, so the call applies nothing and names the
 * schema's version. The Lambda shape's call (its Flyway made on demand) is LambdaApiTest's and
 * LambdaRuntimeIT's.
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
}
