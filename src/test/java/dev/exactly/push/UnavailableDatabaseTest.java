package dev.exactly.push;

import static dev.exactly.testing.Api.api;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.notNullValue;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** With the database away, pushes answer 503 problem+json with Retry-After. */
@QuarkusTest
@TestProfile(UnavailableDatabaseTest.NoDatabase.class)
class UnavailableDatabaseTest {

    /** Points the app at a loopback port where nothing listens, and skips migrations. */
    public static class NoDatabase implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            int port;
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            return Map.of("quarkus.datasource.reactive.url", "postgresql://127.0.0.1:" + port + "/none",
                    "exactly.schema.migrate-at-start", "false");
        }
    }

    @Test
    void pushAnswers503WithRetryAfter() {
        api().body("{\"items\":[{\"queue\":\"q\",\"transactionId\":\"a\",\"payload\":1}]}").post("/api/v1/push")
                .then().statusCode(503).contentType("application/problem+json")
                .header("Retry-After", notNullValue()).body("type", equalTo("/problems/unavailable"));
        api().get("/api/v1/queues/q").then().statusCode(503).header("Retry-After", notNullValue());
    }
}
