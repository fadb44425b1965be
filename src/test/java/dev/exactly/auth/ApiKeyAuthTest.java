package dev.exactly.auth;

import static dev.exactly.testing.Api.anonymous;
import static dev.exactly.testing.Api.api;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.exactly.testing.PostgresResource;
import dev.exactly.testing.TestDatabase;
import io.quarkus.test.junit.QuarkusTest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/** API-key authentication of the HTTP API (server shape), against a real PostgreSQL. */
@QuarkusTest
class ApiKeyAuthTest {

    private static final String PUSH = "{\"items\":[{\"queue\":\"auth\",\"transactionId\":\"t-1\",\"payload\":{\"n\":1}}]}";

    @Test
    void pushWithoutKeyIs401ProblemAndWritesNothing() throws SQLException {
        long before = count("exactly.messages") + count("exactly.queues");
        anonymous().body(PUSH).post("/api/v1/push").then()
                .statusCode(401)
                .contentType("application/problem+json")
                .header("WWW-Authenticate", startsWith("Bearer"))
                .body("type", equalTo("/problems/unauthorized"))
                .body("status", equalTo(401));
        given().header("Authorization", "Bearer not-the-key").contentType("application/json").body(PUSH)
                .post("/api/v1/push").then().statusCode(401)
                .header("WWW-Authenticate", startsWith("Bearer"))
                .body("type", equalTo("/problems/unauthorized"));
        given().header("Authorization", "Basic ZXhhY3RseS10ZXN0LWtleTo=").contentType("application/json").body(PUSH)
                .post("/api/v1/push").then().statusCode(401);
        assertEquals(before, count("exactly.messages") + count("exactly.queues"));
    }

    @Test
    void everyApiPathNeedsAKey() {
        anonymous().get("/api/v1/queues/auth").then().statusCode(401);
        anonymous().get("/api/v1/messages/00000000-0000-0000-0000-000000000000").then().statusCode(401);
        anonymous().body("{\"queue\":\"auth\"}").post("/api/v1/configure").then().statusCode(401);
        anonymous().post("/api/v1/admin/migrate").then().statusCode(401);
        anonymous().get("/api/v1/no-such-endpoint").then().statusCode(401);
    }

    @Test
    void validKeyPasses() throws SQLException {
        long before = count("exactly.messages");
        api().body(PUSH.replace("t-1", "t-valid")).post("/api/v1/push").then()
                .statusCode(200).body("results[0].status", equalTo("queued"));
        given().header("Authorization", "bearer exactly-test-key").contentType("application/json")
                .get("/api/v1/queues/auth").then().statusCode(200);
        assertEquals(before + 1, count("exactly.messages"));
    }

    @Test
    void healthStaysOpen() {
        anonymous().get("/q/health/live").then().statusCode(200);
    }

    private static long count(String table) throws SQLException {
        try (Connection c = DriverManager.getConnection(TestDatabase.jdbcUrl(PostgresResource.database), "postgres", "");
             Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT count(*) FROM " + table)) {
            r.next();
            return r.getLong(1);
        }
    }
}
