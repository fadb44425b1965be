package dev.exactly.auth;

import static dev.exactly.testing.Api.anonymous;
import static dev.exactly.testing.Api.api;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.Api;
import dev.exactly.testing.PostgresResource;
import dev.exactly.testing.RawHttp;
import dev.exactly.testing.TestDatabase;
import io.quarkus.test.junit.QuarkusTest;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
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

    /** The old filter's path rules, now answered by the HTTP permissions: the API and anything unnamed need the key. */
    @Test
    void pathsOutsideTheApiAreClosedUnlessOpenedOnPurpose() throws Exception {
        int port = RouteSpellingsTest.port();
        for (String path : List.of("//api/v1/queues", "/API/v1/queues", "/api", "/apidocs", "/", "/favicon.ico", "/q/dev-ui",
                // a public path under another spelling than its plain one is closed like any other
                "/q/health;x/live", "/zz/../q/health/live", "/q/health/%6Cive", "/q/metrics;x", "/q/./openapi")) {
            RawHttp.Answer a = RawHttp.send(port, "GET", path, Map.of(), null);
            assertTrue(RouteSpellingsTest.isUnauthorized(a), path + ": " + a.status() + " " + a.headers() + " " + a.body());
            assertEquals("Bearer realm=\"exactly\"", a.header("www-authenticate"));
        }
        // the public ones answer without a key (a webhook is refused by its own signature check)
        assertEquals(200, RawHttp.send(port, "GET", "/q/health/live", Map.of(), null).status());
        assertEquals(200, RawHttp.send(port, "GET", "/q/openapi", Map.of(), null).status());
        assertEquals(200, RawHttp.send(port, "GET", "/q/metrics", Map.of(), null).status());
        RawHttp.Answer encoded = RawHttp.send(port, "POST", "/webhooks/%67ithub", Map.of("Content-Type", "application/json"),
                "{}".getBytes(StandardCharsets.UTF_8));
        assertTrue(RouteSpellingsTest.isUnauthorized(encoded), encoded.status() + " " + encoded.body());
        RawHttp.Answer webhook = RawHttp.send(port, "POST", "/webhooks/github", Map.of("Content-Type", "application/json"),
                "{}".getBytes(StandardCharsets.UTF_8));
        assertEquals(401, webhook.status(), webhook.body());
        assertTrue(webhook.body().contains("signature"), webhook.body());
        assertNull(webhook.header("www-authenticate"), "a webhook's 401 is its signature's, not the API key's");
    }

    /** A wrong key: 401 with error="invalid_token" (RFC 6750, section 3.1), also on a public path. */
    @Test
    void aWrongKeyIsInvalidToken() throws Exception {
        int port = RouteSpellingsTest.port();
        for (String path : List.of("/api/v1/queues", "/nowhere", "/q/health/live")) {
            RawHttp.Answer a = RawHttp.send(port, "GET", path, Map.of("Authorization", "Bearer not-the-key"), null);
            assertEquals(401, a.status(), path);
            assertEquals("Bearer realm=\"exactly\", error=\"invalid_token\"", a.header("www-authenticate"), path);
            assertTrue(a.body().contains("\"type\":\"/problems/unauthorized\""), a.body());
            assertTrue(a.body().contains("not valid"), a.body());
        }
    }

    /** A valid key on a path that no permission opens: 403 problem+json (deny by default), not the route's answer. */
    @Test
    void aValidKeyOnAClosedPathIs403Problem() throws Exception {
        int port = RouteSpellingsTest.port();
        for (String path : List.of("/", "/apidocs", "/q/swagger-ui", "/API/v1/queues")) {
            RawHttp.Answer a = RawHttp.send(port, "GET", path, Map.of("Authorization", "Bearer " + Api.TEST_API_KEY), null);
            assertEquals(403, a.status(), path + ": " + a.body());
            assertEquals("application/problem+json", a.header("content-type"), path);
            assertTrue(a.body().contains("\"type\":\"/problems/forbidden\""), a.body());
        }
        // under /api the key reaches the router: an unknown path is its 404
        api().get("/api/v1/no-such-endpoint").then().statusCode(404).body("type", equalTo("/problems/not-found"));
    }

    /**
     * Nothing is read before the key is checked: a request without a key whose body has not
     * arrived (a Content-Length still owed, or a chunked body not yet ended) is answered 401 at
     * once, and its connection closed, instead of waiting for the body (the body-limit filter would
     * otherwise read a chunked body before the endpoint runs).
     */
    @Test
    void aRefusedRequestsBodyIsNotWaitedFor() throws Exception {
        int port = RouteSpellingsTest.port();
        for (String framing : List.of("Content-Length: 100000\r\n", "Transfer-Encoding: chunked\r\n")) {
            try (Socket s = new Socket("127.0.0.1", port)) {
                s.setSoTimeout(10_000);
                String head = "POST /api/v1/push HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        + framing + "\r\n" + (framing.startsWith("Transfer") ? "10\r\n{\"items\":[{\"queu\r\n" : "{\"items\":[");
                s.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
                long t0 = System.nanoTime();
                RawHttp.Answer a = RawHttp.read(s.getInputStream());
                assertEquals(401, a.status(), framing + a.body());
                assertEquals("close", a.header("connection"), framing);
                assertTrue(System.nanoTime() - t0 < 5_000_000_000L, "answered without waiting for the body");
            }
        }
    }

    private static long count(String table) throws SQLException {
        try (Connection c = DriverManager.getConnection(TestDatabase.jdbcUrl(PostgresResource.database), "postgres", "");
             Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT count(*) FROM " + table)) {
            r.next();
            return r.getLong(1);
        }
    }
}
