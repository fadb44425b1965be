package dev.exactly.lambda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.standardwebhooks.Webhook;
import dev.exactly.lambda.runtime.ApiGatewayEvents;
import dev.exactly.lambda.runtime.FakeSecretsManager;
import dev.exactly.lambda.runtime.FunctionProcess;
import dev.exactly.lambda.runtime.RuntimeApiServer;
import dev.exactly.testing.Api;
import dev.exactly.testing.SqlMigrations;
import dev.exactly.testing.TestDatabase;
import dev.exactly.webhook.Signing;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * target/function.zip as AWS runs it (failsafe, after packaging, in the lambda Maven profile):
 * the AWS Lambda Java runtime interface client loads the handler infra/terraform names from the
 * unzipped package in a JVM of its own, polls a Lambda Runtime API served by the test
 * ({@link RuntimeApiServer}) and gets API Gateway HTTP API 2.0 events built on AWS's sample
 * event. The function is configured the way infra/terraform configures it: QUARKUS_PROFILE=lambda,
 * the API key's digest, the webhook sources in the settings document, and every secret (database
 * credentials, webhook signing secrets) only as a Secrets Manager reference, served by
 * {@link FakeSecretsManager}. The database is the tests' embedded PostgreSQL.
 *
 * <p>Prints the cold start (process start to the first answered push) and the median warm
 * latency of a one-item push over {@code -Dexactly.lambda.warm-invocations} (default 50)
 * invocations; it asserts no timing.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LambdaRuntimeIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String DB_USER = "exactly_fn";
    private static final String GITHUB_SECRET = "github-secret-from-secrets-manager";
    private static final String STRIPE_SECRET = "whsec_stripe-secret-from-secrets-manager";
    private static final String SVIX_SECRET = "whsec_" + Base64.getEncoder().encodeToString("svix-key-from-secrets-manager!!".getBytes(StandardCharsets.UTF_8));
    static final String ARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:";
    static final String SETTINGS = ARN + "exactly-settings-AbCdEf";
    private static final String SQUARE_KEY = "square-signature-key-from-secrets-manager";
    private static final String SQUARE_URL = "https://abc123.execute-api.eu-west-1.amazonaws.com/webhooks/square";
    private static final String ACME_SECRET = "acme-secret-from-secrets-manager";

    private static RuntimeApiServer runtime;
    private static FakeSecretsManager secrets;
    private static FunctionProcess function;
    private static String database;

    @BeforeAll
    static void start() throws Exception {
        database = TestDatabase.createMigratedDatabase();
        createFunctionRole();
        secrets = new FakeSecretsManager();
        runtime = new RuntimeApiServer();
        function = FunctionProcess.start("main", runtime, environment(database, secrets, Map.of()));
    }

    /** The database role the function logs in as (its name and password come from the fake Secrets Manager). */
    static void createFunctionRole() throws SQLException {
        sql("postgres", "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '" + DB_USER + "') THEN "
                + "CREATE ROLE " + DB_USER + " LOGIN SUPERUSER PASSWORD 'db-password-from-secrets-manager'; END IF; END $$");
    }

    @AfterAll
    static void stop() throws Exception {
        if (function != null) {
            function.close();
        }
        if (runtime != null) {
            runtime.close();
        }
        if (secrets != null) {
            secrets.close();
        }
    }

    /**
     * The function's environment as infra/terraform sets it (function.tf, secrets.tf): a fixed
     * handful of variables; the webhook sources' settings in the settings document
     * (EXACTLY_SECRETS_DOCUMENT), its secrets only as references, their values in Secrets
     * Manager; the database credentials in a secret read when a connection opens. (The
     * application role and the migrate step's master user, as deployed, are LambdaDeployIT's.)
     */
    static Map<String, String> environment(String db, FakeSecretsManager sm, Map<String, String> extra) throws Exception {
        sm.put(ARN + "exactly-db-app-AbCdEf", JSON.writeValueAsString(Map.of("username", DB_USER, "password", "db-password-from-secrets-manager")));
        sm.put(ARN + "exactly-webhook-github-AbCdEf", GITHUB_SECRET);
        sm.put(ARN + "exactly-webhook-stripe-AbCdEf", STRIPE_SECRET);
        sm.put(ARN + "exactly-webhook-svix-AbCdEf", SVIX_SECRET);
        sm.put(ARN + "exactly-webhook-square-AbCdEf", SQUARE_KEY);
        sm.put(ARN + "exactly-webhook-acme-AbCdEf", ACME_SECRET);
        Map<String, String> properties = new java.util.LinkedHashMap<>();
        properties.put("exactly.secrets.database", ARN + "exactly-db-app-AbCdEf");
        // webhook sources, as secrets.tf writes webhook_sources into the settings document
        properties.put("exactly.webhooks.sources.github.preset", "github");
        properties.put("exactly.webhooks.sources.stripe.preset", "stripe");
        properties.put("exactly.webhooks.sources.stripe.queue", "payments.stripe");
        properties.put("exactly.webhooks.sources.svix.preset", "standard-webhooks");
        properties.put("exactly.webhooks.sources.svix.partition.header", "x-tenant");
        properties.put("exactly.webhooks.sources.square.preset", "square");
        properties.put("exactly.webhooks.sources.square.notification-url", SQUARE_URL);
        properties.put("exactly.webhooks.sources.acme.preset", "generic");
        properties.put("exactly.webhooks.sources.acme.signature", "hmac-sha256");
        properties.put("exactly.webhooks.sources.acme.signature-header", "X-Acme-Signature");
        properties.put("exactly.webhooks.sources.acme.signature-prefix", "sha256=");
        properties.put("exactly.webhooks.sources.acme.signature-encoding", "base64");
        properties.put("exactly.webhooks.sources.acme.key.content-hash", "true");
        properties.put("exactly.webhooks.sources.acme.key.exclude", "/sent_at,/meta/attempt");
        properties.put("exactly.webhooks.sources.acme.headers", "x-acme-signature,x-acme-event");
        properties.put("exactly.webhooks.sources.acme.max-body-bytes", "1048576");
        properties.put("exactly.webhooks.sources.acme.window-seconds", "172800");
        Map<String, String> refs = new java.util.LinkedHashMap<>();
        refs.put("exactly.webhooks.sources.github.secret", ARN + "exactly-webhook-github-AbCdEf");
        refs.put("exactly.webhooks.sources.stripe.secret", ARN + "exactly-webhook-stripe-AbCdEf");
        refs.put("exactly.webhooks.sources.svix.secret", ARN + "exactly-webhook-svix-AbCdEf");
        refs.put("exactly.webhooks.sources.square.secret", ARN + "exactly-webhook-square-AbCdEf");
        refs.put("exactly.webhooks.sources.acme.secret", ARN + "exactly-webhook-acme-AbCdEf");
        sm.put(SETTINGS, JSON.writeValueAsString(Map.of("properties", properties, "secrets", refs,
                "revision", List.of("a1b2c3d4-5678-90ab-cdef-111111111111"))));
        Map<String, String> env = new HashMap<>();
        env.put("QUARKUS_PROFILE", "lambda");
        env.put("QUARKUS_DATASOURCE_REACTIVE_URL", TestDatabase.reactiveUrl(db));
        env.put("EXACTLY_AUTH_API_KEY_SHA256", HexFormat.of().formatHex(
                java.security.MessageDigest.getInstance("SHA-256").digest(Api.TEST_API_KEY.getBytes(StandardCharsets.UTF_8))));
        env.put("EXACTLY_SECRETS_DOCUMENT", SETTINGS);
        env.put("EXACTLY_SECRETS_ENDPOINT", sm.endpoint());
        // as function.tf writes it (the settings document's version id; not read by the function)
        env.put("EXACTLY_SECRETS_VERSION", "a1b2c3d4-5678-90ab-cdef-222222222222");
        // a test-only source that keeps the headers under test as they arrived (set in the
        // environment, which still takes precedence over the settings document)
        env.put("EXACTLY_WEBHOOKS_SOURCES_ECHO_SIGNATURE", "none");
        env.put("EXACTLY_WEBHOOKS_SOURCES_ECHO_KEY_HEADER", "x-key");
        env.put("EXACTLY_WEBHOOKS_SOURCES_ECHO_HEADERS", "accept,x-repeated,cookie,x-key");
        env.put("EXACTLY_WEBHOOKS_SOURCES_ECHO_MAX_BODY_BYTES", "64");
        env.putAll(extra);
        return env;
    }

    // --- calling the function ------------------------------------------------------------------

    /** The function's APIGatewayV2HTTPResponse: status, headers, body (decoded when base64). */
    record Answer(int status, Map<String, String> headers, String body) {
        JsonNode json() throws Exception {
            return JSON.readTree(body);
        }

        String header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name)).map(Map.Entry::getValue)
                    .findFirst().orElse(null);
        }
    }

    static Answer call(RuntimeApiServer api, ApiGatewayEvents event) throws Exception {
        return answer(api.invoke(event.build(), TIMEOUT));
    }

    static Answer answer(RuntimeApiServer.Outcome outcome) throws Exception {
        assertNotNull(outcome.response(), "the function reported an invocation error: " + outcome.error());
        JsonNode r = JSON.readTree(outcome.response());
        Map<String, String> headers = new HashMap<>();
        r.path("headers").fields().forEachRemaining(h -> headers.put(h.getKey(), h.getValue().asText()));
        String body = r.path("body").isMissingNode() || r.path("body").isNull() ? "" : r.path("body").asText();
        if (r.path("isBase64Encoded").asBoolean()) {
            body = new String(Base64.getDecoder().decode(body), StandardCharsets.UTF_8);
        }
        return new Answer(r.path("statusCode").asInt(), headers, body);
    }

    static ApiGatewayEvents withKey(String method, String path) {
        return ApiGatewayEvents.request(method, path).header("authorization", "Bearer " + Api.TEST_API_KEY);
    }

    static String push(String queue, String transactionId) {
        return "{\"items\":[{\"queue\":\"" + queue + "\",\"transactionId\":\"" + transactionId + "\",\"payload\":{\"n\":1}}]}";
    }

    static void assertProblem(Answer a, int status) throws Exception {
        assertEquals(status, a.status(), a.body());
        assertEquals("application/problem+json", a.header("content-type"), a.headers().toString());
        assertEquals(status, a.json().path("status").asInt(), a.body());
    }

    // --- the tests -----------------------------------------------------------------------------

    @Test
    @Order(1)
    void pushQueuedThenDuplicateWithTheSameId() throws Exception {
        Answer first = call(runtime, withKey("POST", "/api/v1/push").json(push("lambda-ric", "order-1")));
        long coldNanos = System.nanoTime() - function.startNanos();
        assertEquals(200, first.status(), first.body() + "\n" + function.output());
        assertEquals("queued", first.json().at("/results/0/status").asText());
        String id = first.json().at("/results/0/messageId").asText();
        Answer again = call(runtime, withKey("POST", "/api/v1/push").json(push("lambda-ric", "order-1")));
        assertEquals("duplicate", again.json().at("/results/0/status").asText());
        assertEquals(id, again.json().at("/results/0/messageId").asText());
        // without SnapStart the start neither preloads Quarkus' class list nor primes the push path
        // (SnapStartHooks registers no hook): that would be paid in this cold start
        assertFalse(function.output().contains("rounds of the push path"), function.output());
        System.out.printf("LambdaRuntimeIT: cold start (process start to the first answered push) %d ms; initialisation %d ms%n",
                TimeUnit.NANOSECONDS.toMillis(coldNanos),
                TimeUnit.NANOSECONDS.toMillis(runtime.firstNextNanos() - function.startNanos()));
    }

    @Test
    @Order(2)
    void theDatabaseCredentialsCameFromSecretsManager() throws Exception {
        assertTrue(secrets.requests().contains(ARN + "exactly-db-app-AbCdEf"), secrets.requests().toString());
        for (String atStart : List.of(SETTINGS, ARN + "exactly-webhook-github-AbCdEf")) {
            assertEquals(1, secrets.requests().stream().filter(atStart::equals).count(),
                    "one GetSecretValue per secret read at start-up: " + secrets.requests());
        }
        try (Connection c = DriverManager.getConnection(TestDatabase.jdbcUrl(database), "postgres", "");
             Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT DISTINCT usename FROM pg_stat_activity WHERE datname = current_database()"
                     + " AND application_name = 'exactly'")) {
            assertTrue(r.next(), "the function holds a connection");
            assertEquals(DB_USER, r.getString(1), "the user named by the secret");
        }
    }

    @Test
    @Order(3)
    void aBase64EncodedBody() throws Exception {
        byte[] body = push("lambda-ric", "b64-é").getBytes(StandardCharsets.UTF_8);
        Answer a = call(runtime, withKey("POST", "/api/v1/push").header("content-type", "application/json").body(body, true));
        assertEquals(200, a.status(), a.body());
        assertEquals("queued", a.json().at("/results/0/status").asText());
        assertEquals("b64-é", a.json().at("/results/0/transactionId").asText());
    }

    /**
     * A long poll outlasts the function's wait for a request to reach the application (5 s): the
     * first route tells the function the request arrived, so only a request that never does is
     * answered 503 /problems/no-answer.
     */
    @Test
    @Order(3)
    void aLongPollPastTheArrivalWaitIsAnsweredByThePoll() throws Exception {
        assertEquals(200, call(runtime, withKey("POST", "/api/v1/push").json(push("lambda-ric-poll", "poll-1"))).status());
        String pop = "{\"queue\":\"lambda-ric-poll\",\"consumerGroup\":\"g\",\"batch\":10,\"waitMillis\":%d}";
        Answer leased = call(runtime, withKey("POST", "/api/v1/pop").json(pop.formatted(0)));
        assertEquals(1, leased.json().path("messages").size(), leased.body());
        long start = System.nanoTime();
        Answer a = call(runtime, withKey("POST", "/api/v1/pop").json(pop.formatted(7000)));
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(200, a.status(), a.body() + "\n" + function.output());
        assertEquals(0, a.json().path("messages").size(), a.body());
        assertTrue(tookMs >= 7_000, "answered after the poll's wait, took " + tookMs + " ms");
        assertFalse(function.output().contains("No answer from the HTTP layer"), function.output());
    }

    @Test
    @Order(4)
    void refusalsAreProblemJson() throws Exception {
        Answer anonymous = call(runtime, ApiGatewayEvents.request("POST", "/api/v1/push").json(push("lambda-ric", "anon")));
        assertProblem(anonymous, 401);
        Answer invalid = call(runtime, withKey("POST", "/api/v1/push").json("{\"items\":[{\"queue\":\"bad name\",\"payload\":1}]}"));
        assertProblem(invalid, 400);
        assertEquals("queue", invalid.json().at("/errors/0/field").asText());
        Answer large = call(runtime, ApiGatewayEvents.request("POST", "/webhooks/echo").header("x-key", "big")
                .json("{\"padding\":\"" + "x".repeat(100) + "\"}"));
        assertProblem(large, 413);
        // over the Lambda shape's body limit (3112960 bytes: what always fits in a 6 MB invocation), though under 6 MiB
        Answer overEvent = call(runtime, withKey("POST", "/api/v1/push").json("{\"items\":[{\"queue\":\"lambda-ric\",\"payload\":\""
                + "x".repeat(3_112_960) + "\"}]}"));
        assertProblem(overEvent, 413);
    }

    @Test
    @Order(5)
    void github() throws Exception {
        String delivery = UUID.randomUUID().toString();
        byte[] body = ("{\"zen\":\"Keep it logically awesome.\",\"hook_id\":" + System.nanoTime() + "}").getBytes(StandardCharsets.UTF_8);
        ApiGatewayEvents valid = ApiGatewayEvents.request("POST", "/webhooks/github").header("content-type", "application/json")
                .header("x-github-event", "ping").header("x-github-delivery", delivery)
                .header("x-hub-signature-256", Signing.github(GITHUB_SECRET, body)).body(body, false);
        ApiGatewayEvents tampered = ApiGatewayEvents.request("POST", "/webhooks/github").header("content-type", "application/json")
                .header("x-github-event", "ping").header("x-github-delivery", UUID.randomUUID().toString())
                .header("x-hub-signature-256", Signing.github(GITHUB_SECRET, body)).body(tamper(body), false);
        deliveries(valid, valid, tampered, "webhooks.github");
    }

    @Test
    @Order(6)
    void stripeSignedByStripesLibrary() throws Exception {
        String payload = "{\"id\":\"evt_" + System.nanoTime() + "\",\"object\":\"event\",\"type\":\"invoice.paid\"}";
        long t = com.stripe.net.Webhook.Util.getTimeNow();
        String signature = com.stripe.net.Webhook.Signature.generateSignatureHeader(payload, STRIPE_SECRET, t);
        assertTrue(com.stripe.net.Webhook.Signature.verifyHeader(payload, signature, STRIPE_SECRET, 300), "stripe-java accepts its own header");
        assertTrue(signature.contains(","), "a Stripe-Signature carries a comma: " + signature);
        ApiGatewayEvents valid = ApiGatewayEvents.request("POST", "/webhooks/stripe").json(payload).header("stripe-signature", signature);
        // a redelivery: Stripe signs each attempt anew, with a later timestamp
        String later = com.stripe.net.Webhook.Signature.generateSignatureHeader(payload, STRIPE_SECRET, t + 1);
        ApiGatewayEvents again = ApiGatewayEvents.request("POST", "/webhooks/stripe").json(payload).header("stripe-signature", later);
        ApiGatewayEvents tampered = ApiGatewayEvents.request("POST", "/webhooks/stripe")
                .json(payload.replace("invoice.paid", "invoice.void")).header("stripe-signature", signature);
        deliveries(valid, again, tampered, "payments.stripe");
    }

    @Test
    @Order(7)
    void standardWebhooksSignedByItsLibrary() throws Exception {
        String id = "msg_" + System.nanoTime();
        String payload = "{\"type\":\"user.created\",\"data\":{\"id\":42}}";
        long t = System.currentTimeMillis() / 1000;
        String signature = new Webhook(SVIX_SECRET).sign(id, t, payload);
        assertTrue(signature.startsWith("v1,"), signature);
        ApiGatewayEvents valid = ApiGatewayEvents.request("POST", "/webhooks/svix").json(payload).header("x-tenant", "acme")
                .header("webhook-id", id).header("webhook-timestamp", Long.toString(t)).header("webhook-signature", signature);
        ApiGatewayEvents tampered = ApiGatewayEvents.request("POST", "/webhooks/svix").json(payload.replace("42", "43"))
                .header("x-tenant", "acme").header("webhook-id", "msg_other" + System.nanoTime())
                .header("webhook-timestamp", Long.toString(t)).header("webhook-signature", signature);
        deliveries(valid, valid, tampered, "webhooks.svix");
    }

    /** Square: the notification URL Terraform sets (secrets.tf: the source's own webhook URL) is signed with the body. */
    @Test
    @Order(7)
    void squareWithTheNotificationUrlFromTerraform() throws Exception {
        byte[] body = ("{\"merchant_id\":\"M1\",\"type\":\"payment.updated\",\"event_id\":\"" + UUID.randomUUID() + "\"}")
                .getBytes(StandardCharsets.UTF_8);
        ApiGatewayEvents valid = ApiGatewayEvents.request("POST", "/webhooks/square").header("content-type", "application/json")
                .header("x-square-hmacsha256-signature", Signing.square(SQUARE_KEY, SQUARE_URL, body)).body(body, false);
        ApiGatewayEvents otherUrl = ApiGatewayEvents.request("POST", "/webhooks/square").header("content-type", "application/json")
                .header("x-square-hmacsha256-signature", Signing.square(SQUARE_KEY, SQUARE_URL + "/", body)).body(body, false);
        deliveries(valid, valid, otherUrl, "webhooks.square");
    }

    /**
     * A generic source configured with every option Terraform's webhook_sources can set: an
     * HMAC header with prefix and base64, a content-hash key leaving out volatile fields, kept
     * headers, a body limit and a window.
     */
    @Test
    @Order(7)
    void aGenericSourceConfiguredAsTerraformWritesIt() throws Exception {
        String event = "{\"type\":\"order.paid\",\"order\":" + System.nanoTime() + ",\"sent_at\":\"%s\",\"meta\":{\"attempt\":%d}}";
        byte[] first = String.format(event, "2030-01-01T00:00:00Z", 1).getBytes(StandardCharsets.UTF_8);
        byte[] retry = String.format(event, "2030-01-01T00:05:00Z", 2).getBytes(StandardCharsets.UTF_8);
        ApiGatewayEvents valid = ApiGatewayEvents.request("POST", "/webhooks/acme").header("content-type", "application/json")
                .header("x-acme-event", "order.paid").header("x-acme-signature", "sha256=" + Signing.hmacBase64(ACME_SECRET, first))
                .body(first, false);
        ApiGatewayEvents resent = ApiGatewayEvents.request("POST", "/webhooks/acme").header("content-type", "application/json")
                .header("x-acme-signature", "sha256=" + Signing.hmacBase64(ACME_SECRET, retry)).body(retry, false);
        ApiGatewayEvents unprefixed = ApiGatewayEvents.request("POST", "/webhooks/acme").header("content-type", "application/json")
                .header("x-acme-signature", Signing.hmacBase64(ACME_SECRET, first)).body(first, false);
        deliveries(valid, resent, unprefixed, "webhooks.acme");
        Answer stored = call(runtime, withKey("GET", "/api/v1/queues/webhooks.acme"));
        assertEquals(172800, stored.json().at("/options/dedupWindowSeconds").asInt(), stored.body());
    }

    /** valid: queued; redelivered: duplicate with the same message id; tampered: 401 problem+json, nothing stored. */
    private static void deliveries(ApiGatewayEvents valid, ApiGatewayEvents redelivered, ApiGatewayEvents tampered, String queue) throws Exception {
        Answer first = call(runtime, valid);
        assertEquals(200, first.status(), first.body());
        assertEquals("queued", first.header("exactly-verdict"));
        assertEquals(queue, first.json().path("queue").asText());
        Answer again = call(runtime, redelivered);
        assertEquals(200, again.status(), again.body());
        assertEquals("duplicate", again.header("exactly-verdict"));
        assertEquals(first.header("exactly-message-id"), again.header("exactly-message-id"));
        long before = count(queue);
        assertProblem(call(runtime, tampered), 401);
        assertEquals(before, count(queue), "a tampered delivery writes nothing");
    }

    private static byte[] tamper(byte[] body) {
        byte[] b = body.clone();
        b[b.length - 2] = (byte) (b[b.length - 2] == '1' ? '2' : '1');
        return b;
    }

    @Test
    @Order(8)
    void headersCookiesAndQueryArriveAsSent() throws Exception {
        String key = "key,with,commas-" + System.nanoTime();
        Answer a = call(runtime, ApiGatewayEvents.request("POST", "/webhooks/echo").json("{\"a\":1}")
                .header("accept", "text/html, application/json;q=0.9,*/*;q=0.1")
                .header("x-repeated", "first,second,third") // how API Gateway passes a header sent three times
                .header("x-key", key)
                .cookies(List.of("session=abc", "theme=dark,blue")));
        assertEquals(200, a.status(), a.body());
        assertEquals(key, a.json().path("transactionId").asText(), "the key header, commas included");
        JsonNode stored = call(runtime, withKey("GET", "/api/v1/messages/" + a.header("exactly-message-id"))).json().path("headers");
        assertEquals("text/html, application/json;q=0.9,*/*;q=0.1", stored.path("accept").asText(), stored.toString());
        assertEquals("first,second,third", stored.path("x-repeated").asText(), stored.toString());
        assertEquals("session=abc; theme=dark,blue", stored.path("cookie").asText(), stored.toString());

        Answer task = call(runtime, withKey("POST", "/api/v1/tasks").json("{\"queue\":\"ric-q\",\"id\":\"t-1\",\"type\":\"x\",\"data\":1}"));
        assertEquals(200, task.status(), task.body());
        Answer found = call(runtime, withKey("GET", "/api/v1/tasks/t-1?queue=ric-q"));
        assertEquals(200, found.status(), found.body());
        assertEquals("ric-q", found.json().path("queue").asText());
        assertEquals(404, call(runtime, withKey("GET", "/api/v1/tasks/t-1?queue=other")).status());
    }

    /**
     * Headers sent on several lines, as API Gateway hands them over (the lines joined by ",", AWS
     * documentation, "Create AWS Lambda proxy integrations for HTTP APIs"): the verifiers and key
     * extractors read the same combined value as in the server shape
     * (WebhookResourceTest#aRepeatedHeaderIsReadAsItsLinesJoinedByComma sends the lines apart).
     */
    @Test
    @Order(8)
    void repeatedHeadersAreCombinedAsApiGatewayCombinesThem() throws Exception {
        String payload = "{\"id\":\"evt_rep" + System.nanoTime() + "\",\"object\":\"event\"}";
        long t = com.stripe.net.Webhook.Util.getTimeNow();
        String stale = com.stripe.net.Webhook.Signature.generateSignatureHeader(payload, "whsec_rolled-away", t);
        String valid = com.stripe.net.Webhook.Signature.generateSignatureHeader(payload, STRIPE_SECRET, t);
        String combined = stale + "," + valid.substring(valid.indexOf("v1="));
        Answer stripe = call(runtime, ApiGatewayEvents.request("POST", "/webhooks/stripe").json(payload).header("stripe-signature", combined));
        assertEquals(200, stripe.status(), stripe.body());
        assertEquals("queued", stripe.header("exactly-verdict"));

        String a = UUID.randomUUID().toString();
        String b = UUID.randomUUID().toString();
        byte[] body = ("{\"zen\":\"repeated\",\"after\":\"" + a + "\"}").getBytes(StandardCharsets.UTF_8);
        Answer gh = call(runtime, ApiGatewayEvents.request("POST", "/webhooks/github").header("content-type", "application/json")
                .header("x-github-event", "push").header("x-github-delivery", a + "," + b)
                .header("x-hub-signature-256", Signing.github(GITHUB_SECRET, body)).body(body, false));
        assertEquals(200, gh.status(), gh.body());
        assertEquals(a + "," + b, gh.json().path("transactionId").asText());
        JsonNode stored = call(runtime, withKey("GET", "/api/v1/messages/" + gh.header("exactly-message-id"))).json().path("headers");
        assertEquals(a + "," + b, stored.path("x-github-delivery").asText(), stored.toString());

        String signature = Signing.github(GITHUB_SECRET, body);
        assertProblem(call(runtime, ApiGatewayEvents.request("POST", "/webhooks/github").header("content-type", "application/json")
                .header("x-github-delivery", UUID.randomUUID().toString())
                .header("x-hub-signature-256", signature + "," + signature).body(body, false)), 401);
    }

    /**
     * EventBridge's own scheduled event, which maintenance.tf's target (no input) makes it send, runs
     * maintenance without an API key; the maintenance endpoint through API Gateway still needs
     * one, even when the request's body is that same event.
     */
    @Test
    @Order(9)
    void theMaintenanceEventExactlyAsScheduleTfSendsIt() throws Exception {
        String event = scheduleEvent();
        RuntimeApiServer.Outcome outcome = runtime.invoke(event.getBytes(StandardCharsets.UTF_8), TIMEOUT);
        assertNotNull(outcome.response(), "the function reported an invocation error: " + outcome.error() + "\n" + function.output());
        JsonNode report = JSON.readTree(outcome.response());
        assertTrue(report.has("purgedMessages") && report.has("steps") && report.has("more"), report.toString());

        assertProblem(call(runtime, ApiGatewayEvents.request("POST", "/api/v1/admin/maintenance").json(event)), 401);
        assertProblem(call(runtime, ApiGatewayEvents.request("POST", "/api/v1/admin/maintenance")
                .header("source", "aws.events").header("detail-type", "Scheduled Event")), 401);
        Answer keyed = call(runtime, withKey("POST", "/api/v1/admin/maintenance"));
        assertEquals(200, keyed.status(), keyed.body());
    }

    @Test
    @Order(10)
    void theMigrateCall() throws Exception {
        Answer a = call(runtime, withKey("POST", "/api/v1/admin/migrate"));
        assertEquals(200, a.status(), a.body());
        assertEquals(0, a.json().path("migrationsExecuted").asInt(), "the database was migrated already: " + a.body());
        assertNotNull(a.json().path("schemaVersion").asText(null), a.body());
    }

    @Test
    @Order(11)
    void warmLatency() throws Exception {
        int n = Integer.getInteger("exactly.lambda.warm-invocations", 50);
        long[] nanos = new long[n];
        for (int i = 0; i < n; i++) {
            byte[] event = withKey("POST", "/api/v1/push").json(push("lambda-warm", "w-" + i + "-" + System.nanoTime())).build();
            long t0 = System.nanoTime();
            Answer a = answer(runtime.invoke(event, TIMEOUT));
            nanos[i] = System.nanoTime() - t0;
            assertEquals(200, a.status(), a.body());
        }
        Arrays.sort(nanos);
        System.out.printf("LambdaRuntimeIT: warm 1-item push, median of %d invocations %.2f ms (p90 %.2f ms)%n",
                n, nanos[n / 2] / 1e6, nanos[(int) (n * 0.9)] / 1e6);
    }

    /**
     * The function's output (its stdout and stderr, as CloudWatch Logs would get them) is JSON, one
     * object per line: every line the application logged parses alone as an object with timestamp,
     * level, logger and message, none is Quarkus' text format, and the lines QueueWindows logged while
     * the first GitHub and Standard Webhooks deliveries were served carry their invocation's AWS
     * request id and the delivery's queue (the partition only where the producer named it: see JsonLogsTest).
     */
    @Test
    @Order(12)
    void logsAreOneJsonObjectPerLine() throws Exception {
        assertEquals("JSON", FunctionProcess.logFormat(), "infra/terraform sets the function's log format to JSON");
        List<JsonNode> logged = new ArrayList<>();
        Pattern text = Pattern.compile("^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2},\\d{3} +(TRACE|DEBUG|INFO|WARN|ERROR|FATAL) ");
        for (String line : function.output().split("\n")) {
            assertTrue(!text.matcher(line).find(), "a text log line: " + line);
            if (line.startsWith("{")) {
                JsonNode o = JSON.readTree(line);
                assertTrue(o.isObject(), line);
                for (String field : List.of("timestamp", "level", "logger", "message")) {
                    assertTrue(o.hasNonNull(field), field + " in " + line);
                }
                java.time.OffsetDateTime.parse(o.path("timestamp").asText()); // RFC 3339, which Lambda reads
                logged.add(o);
            }
        }
        assertTrue(logged.size() >= 5, "the application's lines:\n" + function.output());
        JsonNode github = logged(logged, "webhook source github: created queue");
        assertEquals("INFO", github.path("level").asText(), github.toString());
        assertEquals("dev.exactly.webhook.QueueWindows", github.path("logger").asText(), github.toString());
        assertTrue(runtime.requestIds().contains(github.at("/mdc/AWSRequestId").asText()),
                "the invocation's request id: " + github);
        assertEquals("webhooks.github", github.at("/mdc/queue").asText(), github.toString());
        assertTrue(github.at("/mdc/partition").isMissingNode(), "the source names no partition: " + github);
        // the Standard Webhooks source takes the partition from a header, which a queue spreading by
        // key would replace: the logging context names the queue only
        JsonNode svix = logged(logged, "webhook source svix: created queue");
        assertEquals("webhooks.svix", svix.at("/mdc/queue").asText(), svix.toString());
        assertTrue(svix.at("/mdc/partition").isMissingNode(), svix.toString());
        assertTrue(runtime.requestIds().contains(svix.at("/mdc/AWSRequestId").asText()), svix.toString());
        assertNotEquals(github.at("/mdc/AWSRequestId").asText(), svix.at("/mdc/AWSRequestId").asText(),
                "each line names its own invocation");
    }

    private static JsonNode logged(List<JsonNode> lines, String messageStart) {
        return lines.stream().filter(o -> o.path("message").asText().startsWith(messageStart)).findFirst()
                .orElseThrow(() -> new AssertionError("no line '" + messageStart + "…':\n" + function.output()));
    }

    /**
     * A frozen instance runs no timer: the duplicates it answered reach the database on a later
     * invocation (at most once a second), which waits for that write before it ends.
     */
    @Test
    @Order(13)
    void duplicateCountsAreWrittenOnTheNextInvocation() throws Exception {
        String queue = "lambda-dups-" + System.nanoTime();
        assertEquals("queued", call(runtime, withKey("POST", "/api/v1/push").json(push(queue, "d-1")))
                .json().at("/results/0/status").asText());
        assertEquals("duplicate", call(runtime, withKey("POST", "/api/v1/push").json(push(queue, "d-1")))
                .json().at("/results/0/status").asText());
        Thread.sleep(1100); // past the shortest interval between two piggybacked writes
        call(runtime, withKey("GET", "/api/v1/queues/" + queue)); // carries the write, and waits for it
        Answer stats = call(runtime, withKey("GET", "/api/v1/queues/" + queue + "/stats"));
        assertEquals(200, stats.status(), stats.body());
        assertEquals(1, stats.json().at("/duplicates/atLeast").asLong(), stats.body());
        assertEquals(3600, stats.json().at("/duplicates/windowSeconds").asInt(), stats.body());
    }

    /**
     * SnapStart as the runtime client runs it (AWS_LAMBDA_INITIALIZATION_TYPE=snap-start): init,
     * the before-checkpoint hooks, /restore/next (here the process is as the snapshot would hold
     * it: no database socket open, none in pg_stat_activity), the after-restore hooks, then the
     * migrate call and pushes.
     */
    @Test
    @Order(20)
    void snapStart() throws Exception {
        String db = TestDatabase.createDatabase();
        try (FakeSecretsManager sm = new FakeSecretsManager(); RuntimeApiServer api = new RuntimeApiServer()) {
            AtomicReference<Map<Integer, Integer>> sockets = new AtomicReference<>();
            AtomicReference<Long> sessions = new AtomicReference<>();
            AtomicReference<FunctionProcess> fn = new AtomicReference<>();
            api.onSnapshot(() -> {
                sockets.set(FunctionProcess.establishedByRemotePort(fn.get().pid()));
                try {
                    sessions.set(sessions(db));
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            try (FunctionProcess snap = FunctionProcess.start("snapstart", api,
                    environment(db, sm, Map.of("AWS_LAMBDA_INITIALIZATION_TYPE", "snap-start")))) {
                fn.set(snap);
                api.restored().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                int pg = TestDatabase.server().getPort();
                assertEquals(null, sockets.get().get(pg), "database sockets at the snapshot: " + sockets.get() + "\n" + snap.output());
                assertEquals(0L, sessions.get(), "database sessions at the snapshot");
                System.out.println("LambdaRuntimeIT: established TCP connections at the snapshot by remote port: " + sockets.get()
                        + " (runtime API " + api.port() + ", Secrets Manager " + sm.port() + ", PostgreSQL " + pg + ")");

                // an empty database: the plain Flyway, in the runtime client's class loader, finds
                // and applies every migration of sql/
                Answer migrate = call(api, withKey("POST", "/api/v1/admin/migrate"));
                assertEquals(200, migrate.status(), migrate.body() + "\n" + snap.output());
                assertEquals(SqlMigrations.files().size(), migrate.json().path("migrationsExecuted").asInt(), migrate.body());
                assertEquals(SqlMigrations.latestVersion(), migrate.json().path("schemaVersion").asText(), migrate.body());
                Answer push = call(api, withKey("POST", "/api/v1/push").json(push("snap", "after-restore")));
                assertEquals("queued", push.json().at("/results/0/status").asText(), push.body());
                assertEquals("duplicate", call(api, withKey("POST", "/api/v1/push").json(push("snap", "after-restore")))
                        .json().at("/results/0/status").asText());
                String out = snap.output();
                assertTrue(out.contains("SnapStart: before checkpoint, no database connection open"), out);
                // the push path was primed before the snapshot (HotPathPriming), and connected nothing (above)
                assertTrue(out.contains("rounds of the push path in"), out);
                assertTrue(out.contains("SnapStart: after restore"), out);
            }
        }
    }

    /** A configuration error stops the start; /runtime/init/error carries the real cause. */
    @Test
    @Order(30)
    void aConfigurationErrorIsReportedThroughInitError() throws Exception {
        String message = initError(Map.of("EXACTLY_WEBHOOKS_SOURCES_BROKEN_PRESET", "no-such-preset"));
        assertTrue(message.contains("exactly.webhooks.sources.broken") && message.contains("no-such-preset"), message);
    }

    /** A secret that Secrets Manager does not have stops the start, naming the key and the secret. */
    @Test
    @Order(31)
    void aMissingSecretIsReportedThroughInitError() throws Exception {
        String message = initError(Map.of("EXACTLY_SECRETS_PROPERTIES",
                "{\"exactly.webhooks.sources.github.secret\":\"" + ARN + "no-such-secret\"}"));
        assertTrue(message.contains("exactly.webhooks.sources.github.secret") && message.contains(ARN + "no-such-secret")
                && message.contains("can't find the specified secret"), message);
    }

    private static String initError(Map<String, String> extra) throws Exception {
        try (FakeSecretsManager sm = new FakeSecretsManager(); RuntimeApiServer api = new RuntimeApiServer();
             FunctionProcess broken = FunctionProcess.start("init-error-" + extra.keySet().iterator().next(), api,
                     environment(TestDatabase.createDatabase(), sm, extra))) {
            RuntimeApiServer.ReportedError e = api.initError().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            assertEquals("/2018-06-01/runtime/init/error", e.path());
            JsonNode body = JSON.readTree(e.body());
            String message = body.path("errorMessage").asText();
            assertNotEquals("", message, e.body());
            assertNotEquals(0, broken.waitFor(30), "the process ends after an init error");
            System.out.println("LambdaRuntimeIT: init error reported: " + message);
            return message;
        }
    }

    // --- helpers ------------------------------------------------------------------------------

    /**
     * The event EventBridge sends when infra/terraform/maintenance.tf's rule fires: its target sets
     * no input (checked here), so it is EventBridge's scheduled event, in the shape of AWS's
     * documented sample (AWS Lambda Developer Guide, "Invoke a Lambda function on a schedule"):
     * version "0", an id, detail-type "Scheduled Event", source "aws.events", account, time,
     * region, the rule's ARN in resources and an empty detail.
     */
    static String scheduleEvent() throws Exception {
        String tf = Files.readString(Path.of("infra", "terraform", "maintenance.tf"));
        int start = tf.indexOf("resource \"aws_cloudwatch_event_target\" \"maintenance\" {");
        assertTrue(start >= 0, "maintenance.tf has the maintenance target");
        String target = tf.substring(start, tf.indexOf("\n}\n", start));
        assertTrue(!target.contains("input"), "the target sets no input, so EventBridge sends its own event: " + target);
        assertTrue(tf.contains("maintenance_name                = \"${var.name}-maintenance\"")
                && tf.contains("name                = local.maintenance_name"), "the rule's name, as in resources below");
        ObjectNode event = JSON.createObjectNode();
        event.put("version", "0");
        event.put("id", UUID.randomUUID().toString());
        event.put("detail-type", "Scheduled Event");
        event.put("source", "aws.events");
        event.put("account", "123456789012");
        event.put("time", java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString());
        event.put("region", "eu-west-1");
        event.putArray("resources").add("arn:aws:events:eu-west-1:123456789012:rule/exactly-maintenance");
        event.putObject("detail");
        return JSON.writeValueAsString(event);
    }

    private static long count(String queue) throws SQLException {
        try (Connection c = DriverManager.getConnection(TestDatabase.jdbcUrl(database), "postgres", "");
             Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT count(*) FROM exactly.messages m JOIN exactly.partitions p ON p.id = m.partition_id"
                     + " JOIN exactly.queues q ON q.id = p.queue_id WHERE q.name = '" + queue + "'")) {
            r.next();
            return r.getLong(1);
        }
    }

    private static long sessions(String db) throws SQLException {
        try (Connection c = DriverManager.getConnection(TestDatabase.jdbcUrl("postgres"), "postgres", "");
             Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE datname = '" + db + "'")) {
            r.next();
            return r.getLong(1);
        }
    }

    private static void sql(String db, String statement) throws SQLException {
        try (Connection c = DriverManager.getConnection(TestDatabase.jdbcUrl(db), "postgres", ""); Statement s = c.createStatement()) {
            s.execute(statement);
        }
    }
}
