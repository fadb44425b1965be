package dev.exactly.lambda;

import static dev.exactly.testing.Api.anonymous;
import static dev.exactly.testing.Api.api;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.schema.FlywaySource;
import dev.exactly.testing.Api;
import dev.exactly.testing.PostgresResource;
import dev.exactly.testing.SizedPayload;
import dev.exactly.testing.SqlMigrations;
import dev.exactly.testing.TestDatabase;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Base64;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The Lambda shape through the Quarkus Lambda mock event server: RestAssured requests are turned
 * into API Gateway HTTP API (payload format 2.0) events and handed to the function, and
 * hand-built APIGatewayV2HTTPEvent JSON is posted to the mock's /_lambda_ endpoint, as API
 * Gateway would send it (one body base64-encoded). Runs with the lambda config profile (no
 * migration at start: the schema comes from the once-per-deploy migrate endpoint), against a real
 * PostgreSQL. Only the lambda Maven profile runs it: {@code mvn -Plambda verify}.
 */
@QuarkusTest
@Tag("lambda")
class LambdaApiTest {

    private static boolean migrated;

    @ConfigProperty(name = "quarkus.datasource.reactive.max-size")
    int poolMaxSize;

    @ConfigProperty(name = "exactly.schema.migrate-at-start")
    boolean migrateAtStart;

    @ConfigProperty(name = "exactly.dedup-cache.enabled")
    boolean dedupCache;

    @Inject
    FlywaySource flywaySource;

    /**
     * The deploy step: apply sql/ through the function, once (a second call applies nothing). The
     * first call, on an empty database, applies every file of sql/ (each versioned and each
     * repeatable migration), so the plain Flyway of the Lambda shape found them all.
     */
    @BeforeEach
    void migrateOnce() {
        if (migrated) {
            return;
        }
        api().post("/api/v1/admin/migrate").then().statusCode(200)
                .body("migrationsExecuted", equalTo(SqlMigrations.files().size()))
                .body("schemaVersion", equalTo(SqlMigrations.latestVersion()));
        api().post("/api/v1/admin/migrate").then().statusCode(200).body("migrationsExecuted", equalTo(0));
        migrated = true;
    }

    /**
     * The Lambda's plain Flyway (the build has no quarkus-flyway) keeps the schema settings of the
     * server shape's quarkus-flyway (src/server/resources/META-INF/microprofile-config.properties),
     * so both shapes keep one history table and either may migrate a database the other did.
     */
    @Test
    void theMigrateCallsFlywayHasTheServersSchemaSettings() throws Exception {
        java.util.Properties server = new java.util.Properties();
        try (java.io.Reader r = java.nio.file.Files.newBufferedReader(
                java.nio.file.Path.of("src/server/resources/META-INF/microprofile-config.properties"))) {
            server.load(r);
        }
        org.flywaydb.core.api.configuration.Configuration c = flywaySource.flyway().getConfiguration();
        assertEquals(server.getProperty("quarkus.flyway.schemas"), String.join(",", c.getSchemas()));
        assertEquals(server.getProperty("quarkus.flyway.default-schema"), c.getDefaultSchema());
        assertEquals(Boolean.parseBoolean(server.getProperty("quarkus.flyway.create-schemas")), c.isCreateSchemas());
        // quarkus-flyway's defaults, which the server file leaves as they are
        assertEquals(null, server.getProperty("quarkus.flyway.locations"));
        assertEquals(null, server.getProperty("quarkus.flyway.table"));
        assertEquals(java.util.List.of("classpath:db/migration"),
                java.util.Arrays.stream(c.getLocations()).map(Object::toString).toList());
        assertEquals("flyway_schema_history", c.getTable());
    }

    @Test
    void runsWithTheLambdaConfigProfile() {
        assertEquals(2, poolMaxSize);
        assertFalse(migrateAtStart);
        assertFalse(dedupCache);
    }

    @Test
    void pushThenDuplicateThroughApiGatewayEvents() {
        String body = "{\"items\":[{\"queue\":\"lambda\",\"transactionId\":\"order-1\",\"payload\":{\"total\":12.5}}]}";
        String id = api().body(body).post("/api/v1/push").then().statusCode(200)
                .body("results", hasSize(1))
                .body("results[0].status", equalTo("queued"))
                .extract().path("results[0].messageId");
        api().body(body).post("/api/v1/push").then().statusCode(200)
                .body("results[0].status", equalTo("duplicate"))
                .body("results[0].messageId", equalTo(id));
        api().get("/api/v1/messages/" + id).then().statusCode(200)
                .body("transactionId", equalTo("order-1"))
                .body("payload.total", equalTo(12.5f));
    }

    /** A push item's headers go through API Gateway events, are stored, and pop returns them; bad ones are a 400. */
    @Test
    void pushItemHeadersThroughApiGatewayEvents() throws SQLException {
        String q = "lambda-headers-" + System.nanoTime();
        api().body("{\"items\":[{\"queue\":\"" + q + "\",\"transactionId\":\"h-1\",\"payload\":1,"
                        + "\"headers\":{\"tenant\":\"acme\",\"note\":\"\u00e9t\u00e9\"}}]}")
                .post("/api/v1/push").then().statusCode(200).body("results[0].status", equalTo("queued"));
        api().body("{\"queue\":\"" + q + "\"}").post("/api/v1/pop").then().statusCode(200)
                .body("messages[0].headers.tenant", equalTo("acme"))
                .body("messages[0].headers.note", equalTo("\u00e9t\u00e9"));
        long before = count("exactly.messages");
        api().body("{\"items\":[{\"queue\":\"" + q + "\",\"payload\":1,\"headers\":{\"x\":7}}]}")
                .post("/api/v1/push").then().statusCode(400).body("errors[0].field", equalTo("headers.x"));
        assertEquals(before, count("exactly.messages"));
    }

    /** The console's page shell and chart library come through API Gateway too, without a key; its data with one. */
    @Test
    void theConsoleIsServedThroughApiGatewayEvents() {
        anonymous().get("/console/").then().statusCode(200)
                .body(org.hamcrest.Matchers.containsString("Enter your API key"));
        anonymous().get("/console/console.js").then().statusCode(200);
        anonymous().get("/webjars/uplot/dist/uPlot.iife.min.js").then().statusCode(200);
        anonymous().get("/api/v1/overview").then().statusCode(401);
        api().get("/api/v1/overview").then().statusCode(200).body("queues", org.hamcrest.Matchers.notNullValue());
    }

    @Test
    void badInputIs400AndWritesNothing() throws SQLException {
        long before = count("exactly.messages");
        api().body("{\"items\":[{\"queue\":\"lambda\",\"transactionId\":\"bad-1\"}]}").post("/api/v1/push").then()
                .statusCode(400)
                .contentType("application/problem+json")
                .body("errors[0].index", equalTo(0))
                .body("errors[0].field", equalTo("payload"));
        api().body("{\"items\":[").post("/api/v1/push").then().statusCode(400);
        assertEquals(before, count("exactly.messages"));
    }

    @Test
    void withoutAKeyIs401AndWritesNothing() throws SQLException {
        long before = count("exactly.messages");
        anonymous().body("{\"items\":[{\"queue\":\"lambda\",\"transactionId\":\"anon\",\"payload\":1}]}")
                .post("/api/v1/push").then()
                .statusCode(401)
                .contentType("application/problem+json")
                .header("WWW-Authenticate", startsWith("Bearer"))
                .body("type", equalTo("/problems/unauthorized"));
        assertEquals(before, count("exactly.messages"));
        anonymous().get("/q/health/live").then().statusCode(200);
    }

    @Test
    void handBuiltEventsWithBase64AndPlainBodies() throws SQLException {
        String push = "{\"items\":[{\"queue\":\"lambda\",\"transactionId\":\"raw-1\",\"payload\":{\"é\":\"ü\"}}]}";
        long before = count("exactly.messages");

        JsonPath first = invoke(event("POST", "/api/v1/push", Api.TEST_API_KEY,
                Base64.getEncoder().encodeToString(push.getBytes(StandardCharsets.UTF_8)), true));
        assertEquals(200, first.getInt("statusCode"));
        JsonPath firstBody = JsonPath.from(body(first));
        assertEquals("queued", firstBody.getString("results[0].status"));
        String id = firstBody.getString("results[0].messageId");
        assertNotNull(id);

        JsonPath second = invoke(event("POST", "/api/v1/push", Api.TEST_API_KEY, json(push), false));
        assertEquals(200, second.getInt("statusCode"));
        JsonPath secondBody = JsonPath.from(body(second));
        assertEquals("duplicate", secondBody.getString("results[0].status"));
        assertEquals(id, secondBody.getString("results[0].messageId"));
        assertEquals(before + 1, count("exactly.messages"));

        JsonPath stored = invoke(event("GET", "/api/v1/messages/" + id, Api.TEST_API_KEY, null, false));
        assertEquals(200, stored.getInt("statusCode"));
        assertEquals("ü", JsonPath.from(body(stored)).getString("payload.é"));

        JsonPath anonymousEvent = invoke(event("POST", "/api/v1/push", null, json(push.replace("raw-1", "raw-2")), false));
        assertEquals(401, anonymousEvent.getInt("statusCode"));
        assertEquals("/problems/unauthorized", JsonPath.from(body(anonymousEvent)).getString("type"));

        JsonPath invalid = invoke(event("POST", "/api/v1/push", Api.TEST_API_KEY,
                Base64.getEncoder().encodeToString("{\"items\":[{\"queue\":\"bad name\",\"payload\":1}]}".getBytes(StandardCharsets.UTF_8)), true));
        assertEquals(400, invalid.getInt("statusCode"));
        assertEquals("queue", JsonPath.from(body(invalid)).getString("errors[0].field"));
        assertEquals(before + 1, count("exactly.messages"));
    }

    /**
     * An API Gateway event carries its body whole (chunking does not apply) and names its length in
     * content-length; the Lambda HTTP adapter still hands every event body on marked
     * Transfer-Encoding: chunked, so an event without content-length (a direct invocation) is read
     * and counted by dev.exactly.http.BodyLimitFilter as a chunked body is. Either way a push of
     * 64 KiB and of 1 MiB arrives byte for byte (read back through the messages endpoint).
     */
    @Test
    void largeBodiesArriveWholeWithAndWithoutContentLength() {
        for (int size : new int[]{64 * 1024, 1024 * 1024}) {
            for (boolean withLength : new boolean[]{true, false}) {
                String what = size + " bytes, content-length " + (withLength ? "given" : "absent");
                String prefix = "{\"items\":[{\"queue\":\"lambda-large\",\"transactionId\":\"large-" + size + "-"
                        + withLength + "-" + System.nanoTime() + "\",\"payload\":";
                String payload = SizedPayload.of(size - prefix.length() - 3, size);
                String push = prefix + payload + "}]}";
                assertEquals(size, push.getBytes(StandardCharsets.UTF_8).length);
                String event = event("POST", "/api/v1/push", Api.TEST_API_KEY, json(push), false);
                if (withLength) {
                    event = event.replace("\"content-type\":", "\"content-length\":\"" + size + "\",\"content-type\":");
                }
                JsonPath pushed = invoke(event);
                assertEquals(200, pushed.getInt("statusCode"), what + ": " + body(pushed));
                String id = JsonPath.from(body(pushed)).getString("results[0].messageId");
                String stored = body(invoke(event("GET", "/api/v1/messages/" + id, Api.TEST_API_KEY, null, false)));
                int at = stored.indexOf("\"payload\":") + "\"payload\":".length();
                assertTrue(stored.startsWith(payload, at), what + ": the stored payload differs from the one pushed");
            }
        }
    }

    /**
     * A pop of messages of a few megabytes answers within the 6 MB synchronous response limit, as
     * the function's APIGatewayV2HTTPResponse (the answer inside it a JSON string, where every
     * quote and backslash of these payloads is escaped), and the partition drains.
     */
    @Test
    void aPopOfLargeMessagesFitsTheLambdaResponseLimit() {
        // 2,000,002 bytes each, every one of them a quote or a backslash: twice that when escaped
        String payload = "\"" + "\\\"".repeat(1_000_000) + "\"";
        int n = 3;
        for (int i = 0; i < n; i++) {
            String push = "{\"items\":[{\"queue\":\"lambda-big\",\"transactionId\":\"big-" + i
                    + "\",\"payload\":" + payload + "}]}";
            api().body(push).post("/api/v1/push").then().statusCode(200).body("results[0].status", equalTo("queued"));
        }
        String pop = "{\"queue\":\"lambda-big\",\"consumerGroup\":\"g\",\"batch\":80}";
        int delivered = 0;
        for (int round = 0; round < 2 * n && delivered < n; round++) {
            String raw = invokeRaw(event("POST", "/api/v1/pop", Api.TEST_API_KEY, json(pop), false));
            int size = raw.getBytes(StandardCharsets.UTF_8).length;
            assertTrue(size < 6_291_456, "response event of " + size + " bytes");
            JsonPath response = JsonPath.from(raw);
            assertEquals(200, response.getInt("statusCode"));
            JsonPath answer = JsonPath.from(body(response));
            java.util.List<Object> offsets = answer.getList("messages.offset");
            assertFalse(offsets.isEmpty(), "the partition drains");
            for (int k = 0; k < offsets.size(); k++) {
                assertEquals(delivered + k, ((Number) offsets.get(k)).intValue());
                String ack = "{\"messageId\":\"" + answer.getString("messages[" + k + "].messageId") + "\",\"leaseId\":\""
                        + answer.getString("messages[" + k + "].leaseId") + "\",\"consumerGroup\":\"g\",\"status\":\"completed\"}";
                assertEquals(200, invoke(event("POST", "/api/v1/ack", Api.TEST_API_KEY, json(ack), false)).getInt("statusCode"));
            }
            delivered += offsets.size();
        }
        assertEquals(n, delivered);
    }

    /**
     * The maintenance schedule (infra/terraform/maintenance.tf) invokes the function directly with a
     * reduced payload 2.0 event (no requestId, time or account); such an event must still reach
     * its endpoint with its key checked.
     */
    @Test
    void scheduledEventShapeReachesTheEndpoint() {
        String minimal = "{\"version\":\"2.0\",\"routeKey\":\"$default\",\"rawPath\":\"/api/v1/admin/migrate\","
                + "\"rawQueryString\":\"\",\"headers\":{\"authorization\":\"Bearer %s\",\"content-type\":\"application/json\"},"
                + "\"requestContext\":{\"http\":{\"method\":\"POST\",\"path\":\"/api/v1/admin/migrate\","
                + "\"protocol\":\"HTTP/1.1\",\"sourceIp\":\"127.0.0.1\"},\"routeKey\":\"$default\",\"stage\":\"$default\"},"
                + "\"body\":\"{}\",\"isBase64Encoded\":false}";
        JsonPath ok = invoke(String.format(minimal, Api.TEST_API_KEY));
        assertEquals(200, ok.getInt("statusCode"));
        assertEquals(0, JsonPath.from(body(ok)).getInt("migrationsExecuted"));
        assertEquals(401, invoke(String.format(minimal, "wrong-key")).getInt("statusCode"));
    }

    /**
     * Header values with commas reach the verifiers whole (the Lambda HTTP adapter splits them on
     * commas; dev.exactly.lambda.ApiGatewayHeaders puts them back): a Stripe and a Standard
     * Webhooks delivery signed as documented are accepted, and the stored message keeps each kept
     * header as the event carried it.
     */
    @Test
    void commaBearingHeadersReachTheVerifiersWhole() {
        long t = System.currentTimeMillis() / 1000;
        String stripeBody = "{\"id\":\"evt_lambda_" + System.nanoTime() + "\",\"type\":\"invoice.paid\"}";
        String stripeSignature = dev.exactly.webhook.Signing.stripe("whsec_stripe-test-secret", t, stripeBody.getBytes(StandardCharsets.UTF_8));
        JsonPath stripe = invoke(webhookEvent("/webhooks/stripe", stripeBody,
                "\"stripe-signature\":\"" + stripeSignature + "\",\"accept\":\"*/*; q=0.5, application/json\""));
        assertEquals(200, stripe.getInt("statusCode"), body(stripe));
        assertEquals("queued", JsonPath.from(body(stripe)).getString("verdict"));
        String id = JsonPath.from(body(stripe)).getString("messageId");
        JsonPath stored = JsonPath.from(body(invoke(event("GET", "/api/v1/messages/" + id, Api.TEST_API_KEY, null, false))));
        assertEquals(stripeSignature, stored.getString("headers.'stripe-signature'"));

        String msgId = "msg_lambda_" + System.nanoTime();
        String swBody = "{\"type\":\"user.created\"}";
        String swSignature = dev.exactly.webhook.Signing.standardWebhooks("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", msgId, t,
                swBody.getBytes(StandardCharsets.UTF_8));
        JsonPath sw = invoke(webhookEvent("/webhooks/standard-webhooks", swBody, "\"webhook-id\":\"" + msgId
                + "\",\"webhook-timestamp\":\"" + t + "\",\"webhook-signature\":\"" + swSignature + "\""));
        assertEquals(200, sw.getInt("statusCode"), body(sw));
        assertEquals("queued", JsonPath.from(body(sw)).getString("verdict"));
    }

    /**
     * A webhook delivered through the Lambda shape is in the sources' figures, which are kept in the
     * database (an instance's meters die with it): an accepted delivery and a forged one, read back
     * through GET /api/v1/webhooks/sources.
     */
    @Test
    void aWebhookThroughTheLambdaShapeIsInTheSourcesFigures() {
        JsonPath before = sourcesFigures();
        String delivery = "lambda-" + System.nanoTime();
        String body = "{\"zen\":\"" + delivery + "\"}";
        String signature = dev.exactly.webhook.Signing.github("gh-test-secret", body.getBytes(StandardCharsets.UTF_8));
        JsonPath ok = invoke(webhookEvent("/webhooks/figures", body, "\"x-github-event\":\"push\",\"x-github-delivery\":\""
                + delivery + "\",\"x-hub-signature-256\":\"" + signature + "\""));
        assertEquals(200, ok.getInt("statusCode"), body(ok));
        String forged = dev.exactly.webhook.Signing.github("not-the-secret", body.getBytes(StandardCharsets.UTF_8));
        JsonPath refused = invoke(webhookEvent("/webhooks/figures", body, "\"x-github-event\":\"push\",\"x-github-delivery\":\""
                + delivery + "-2\",\"x-hub-signature-256\":\"" + forged + "\""));
        assertEquals(401, refused.getInt("statusCode"), body(refused));

        JsonPath after = sourcesFigures();
        String f = "sources.find { it.name == 'figures' }.";
        assertEquals(before.getLong(f + "lastHour.accepted") + 1, after.getLong(f + "lastHour.accepted"));
        assertEquals(before.getLong(f + "lastHour.signatureFailures") + 1, after.getLong(f + "lastHour.signatureFailures"));
        assertNotNull(after.getString(f + "lastDeliveryAt"));
        assertNotNull(after.getString(f + "lastSignatureFailureAt"));
    }

    /** GET /api/v1/webhooks/sources through an API Gateway event: the answer's JSON. */
    private JsonPath sourcesFigures() {
        JsonPath r = invoke(event("GET", "/api/v1/webhooks/sources", Api.TEST_API_KEY, null, false));
        assertEquals(200, r.getInt("statusCode"), body(r));
        return JsonPath.from(body(r));
    }

    /** A payload 2.0 event for a webhook delivery: POST path, a JSON body, and the given header members. */
    private static String webhookEvent(String path, String body, String headerMembers) {
        return "{\"version\":\"2.0\",\"routeKey\":\"$default\",\"rawPath\":\"" + path + "\",\"rawQueryString\":\"\","
                + "\"headers\":{" + headerMembers + ",\"content-type\":\"application/json\"},"
                + "\"requestContext\":{\"http\":{\"method\":\"POST\",\"path\":\"" + path + "\",\"protocol\":\"HTTP/1.1\","
                + "\"sourceIp\":\"203.0.113.7\"},\"requestId\":\"req-" + System.nanoTime() + "\",\"routeKey\":\"$default\",\"stage\":\"$default\"},"
                + "\"body\":" + json(body) + ",\"isBase64Encoded\":false}";
    }

    /** Posts an event to the mock event server's /_lambda_ endpoint; returns the function's APIGatewayV2HTTPResponse. */
    private JsonPath invoke(String event) {
        return JsonPath.from(invokeRaw(event));
    }

    /** {@link #invoke}, the response event as the function wrote it. */
    private String invokeRaw(String event) {
        // looked up here, not injected: the server-shape build validates injected keys of every
        // test class, and this key exists only in the Lambda shape
        int mockPort = ConfigProvider.getConfig().getValue("quarkus.lambda.mock-event-server.test-port", Integer.class);
        return given().baseUri("http://localhost").port(mockPort).contentType("application/json").body(event)
                .post("/_lambda_").then().statusCode(200).extract().asString();
    }

    private static String body(JsonPath response) {
        String body = response.getString("body");
        return response.getBoolean("isBase64Encoded")
                ? new String(Base64.getDecoder().decode(body), StandardCharsets.UTF_8) : body;
    }

    /** An API Gateway HTTP API payload format 2.0 event, as AWS documents it. */
    private static String event(String method, String path, String key, String bodyJsonValue, boolean base64) {
        String auth = key == null ? "" : "\"authorization\":\"Bearer " + key + "\",";
        return "{\"version\":\"2.0\",\"routeKey\":\"$default\",\"rawPath\":\"" + path + "\",\"rawQueryString\":\"\","
                + "\"headers\":{" + auth + "\"content-type\":\"application/json\",\"host\":\"abc123.execute-api.eu-west-1.amazonaws.com\","
                + "\"user-agent\":\"curl/8.5.0\",\"x-forwarded-proto\":\"https\"},"
                + "\"requestContext\":{\"accountId\":\"123456789012\",\"apiId\":\"abc123\","
                + "\"domainName\":\"abc123.execute-api.eu-west-1.amazonaws.com\",\"domainPrefix\":\"abc123\","
                + "\"http\":{\"method\":\"" + method + "\",\"path\":\"" + path + "\",\"protocol\":\"HTTP/1.1\","
                + "\"sourceIp\":\"203.0.113.7\",\"userAgent\":\"curl/8.5.0\"},"
                + "\"requestId\":\"req-" + System.nanoTime() + "\",\"routeKey\":\"$default\",\"stage\":\"$default\","
                + "\"time\":\"01/Jan/2026:00:00:00 +0000\",\"timeEpoch\":1767225600000},"
                + (bodyJsonValue == null ? "" : "\"body\":" + (base64 ? "\"" + bodyJsonValue + "\"" : bodyJsonValue) + ",")
                + "\"isBase64Encoded\":" + base64 + "}";
    }

    /** A string as a JSON string literal. */
    private static String json(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    private static long count(String table) throws SQLException {
        try (Connection c = DriverManager.getConnection(TestDatabase.jdbcUrl(PostgresResource.database), "postgres", "");
             Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT count(*) FROM " + table)) {
            r.next();
            return r.getLong(1);
        }
    }
}
