package dev.exactly.task;

import static dev.exactly.testing.Api.api;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The exactly.tasks.* keys take effect (and coexist with the exactly.* mapping). */
@QuarkusTest
@TestProfile(TaskConfigTest.SmallLimits.class)
class TaskConfigTest {

    /** Small limits. */
    public static class SmallLimits implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("exactly.tasks.max-batch-items", "2", "exactly.tasks.max-claim-limit", "5",
                    "exactly.tasks.default-lease-seconds", "42", "exactly.tasks.max-body-bytes", "200");
        }
    }

    @Test
    void limitsComeFromConfiguration() {
        String q = TaskTesting.freshQueue("cfg");
        String t = "{\"queue\":\"" + q + "\",\"type\":\"t\",\"data\":1}";
        api().body("{\"tasks\":[" + t + "," + t + "," + t + "]}").post("/api/v1/tasks/batch").then().statusCode(400)
                .body("errors.field", hasItem("tasks"));
        api().body("{\"queue\":\"" + q + "\",\"limit\":6}").post("/api/v1/tasks/claim").then().statusCode(400)
                .body("errors.field", hasItem("limit"));
        api().body("{\"queue\":\"" + q + "\",\"type\":\"t\",\"data\":\"" + "x".repeat(200) + "\"}").post("/api/v1/tasks")
                .then().statusCode(413).contentType("application/problem+json");
        api().body(t).post("/api/v1/tasks").then().statusCode(200);
        var claimed = api().body("{\"queue\":\"" + q + "\"}").post("/api/v1/tasks/claim").then().statusCode(200)
                .body("tasks.size()", equalTo(1)).extract().jsonPath();
        // the claim sets updatedAt = now() and leaseExpiresAt = now() + the default lease
        assertEquals(42, Duration.between(OffsetDateTime.parse(claimed.getString("tasks[0].updatedAt")),
                OffsetDateTime.parse(claimed.getString("tasks[0].leaseExpiresAt"))).toSeconds());
    }
}
