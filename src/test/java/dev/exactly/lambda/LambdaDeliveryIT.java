package dev.exactly.lambda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.standardwebhooks.Webhook;
import com.sun.net.httpserver.HttpServer;
import dev.exactly.lambda.runtime.ApiGatewayEvents;
import dev.exactly.lambda.runtime.FakeLambdaInvoke;
import dev.exactly.lambda.runtime.FakeSecretsManager;
import dev.exactly.lambda.runtime.FunctionProcess;
import dev.exactly.lambda.runtime.RuntimeApiServer;
import dev.exactly.testing.Api;
import dev.exactly.testing.TestDatabase;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Destinations in the Lambda shape, with target/function.zip under the AWS Lambda runtime
 * interface client (as {@link LambdaRuntimeIT}): a destination configured as infra/terraform
 * configures it (its settings in the settings document, its signing secret a Secrets Manager
 * reference), an HTTP receiver on loopback that verifies each request with the Standard Webhooks
 * library, and the Lambda Invoke API served on loopback ({@link FakeLambdaInvoke}), which hands
 * each asynchronous invocation the function makes of itself to the same runtime API, as Lambda
 * would run it. A push through an API Gateway event is then delivered without any schedule; a
 * receiver that fails has its partition parked past the invocation's deadline and delivered by
 * the scheduled drain once it is back, with the same webhook-id.
 *
 * <p>Prints the push-to-delivery time of one push (no timing is asserted).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LambdaDeliveryIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String ARN = LambdaRuntimeIT.ARN;
    private static final String SETTINGS = ARN + "exactly-settings-DlVrYx";
    private static final String SIGNING_SECRET = "whsec_" + Base64.getEncoder().encodeToString(
            "a 32-byte key for the receiver!!".getBytes(StandardCharsets.US_ASCII));
    private static final String QUEUE = "orders";
    private static final String FUNCTION_ARN = "arn:aws:lambda:eu-west-1:123456789012:function:exactly:live";

    /** One request the receiver got. */
    record Received(String webhookId, int attempt, String body, boolean verified, int answered) {
    }

    private static RuntimeApiServer runtime;
    private static FakeSecretsManager secrets;
    private static FakeLambdaInvoke lambda;
    private static FunctionProcess function;
    private static HttpServer receiver;
    private static String database;
    private static final List<Received> received = new CopyOnWriteArrayList<>();
    private static final List<RuntimeApiServer.Outcome> drains = new CopyOnWriteArrayList<>();
    private static volatile int answer = 204;

    @BeforeAll
    static void start() throws Exception {
        database = TestDatabase.createMigratedDatabase();
        // counts calls of PL/pgSQL functions (pg_stat_user_functions) in the function's sessions
        try (Connection c = DriverManager.getConnection(TestDatabase.jdbcUrl(database), "postgres", "");
             Statement st = c.createStatement()) {
            st.execute("ALTER DATABASE \"" + database + "\" SET track_functions = 'pl'");
        }
        LambdaRuntimeIT.createFunctionRole();
        secrets = new FakeSecretsManager();
        runtime = new RuntimeApiServer();
        lambda = new FakeLambdaInvoke(event -> {
            try {
                drains.add(runtime.invoke(event, TIMEOUT));
            } catch (Exception e) {
                drains.add(new RuntimeApiServer.Outcome(null, e.toString(), "test"));
            }
        });
        receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        receiver.createContext("/hook", ex -> {
            try (ex) {
                byte[] body = ex.getRequestBody().readAllBytes();
                Map<String, List<String>> headers = new HashMap<>();
                ex.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(), v));
                boolean verified;
                try {
                    new Webhook(SIGNING_SECRET).verify(new String(body, StandardCharsets.UTF_8), HttpHeaders.of(headers, (a, b) -> true));
                    verified = true;
                } catch (Exception e) {
                    verified = false;
                }
                int status = answer;
                received.add(new Received(ex.getRequestHeaders().getFirst("webhook-id"),
                        Integer.parseInt(ex.getRequestHeaders().getFirst("Exactly-Attempt")),
                        new String(body, StandardCharsets.UTF_8), verified, status));
                ex.sendResponseHeaders(status, -1);
            }
        });
        receiver.start();
        function = FunctionProcess.start("delivery", runtime, environment());
    }

    @AfterAll
    static void stop() throws Exception {
        if (function != null) {
            function.close();
        }
        for (AutoCloseable c : new AutoCloseable[] {runtime, secrets, lambda}) {
            if (c != null) {
                c.close();
            }
        }
        if (receiver != null) {
            receiver.stop(0);
        }
    }

    /**
     * As infra/terraform configures a destination (secrets.tf): its settings in the settings
     * document, its signing secret as a Secrets Manager reference; the loopback receiver allowed by
     * exactly.delivery.allowed-hosts. The Invoke endpoint is the test's.
     */
    private static Map<String, String> environment() throws Exception {
        secrets.put(ARN + "exactly-db-app-AbCdEf", JSON.writeValueAsString(Map.of("username", "exactly_fn",
                "password", "db-password-from-secrets-manager")));
        secrets.put(ARN + "exactly-destination-billing-AbCdEf", SIGNING_SECRET);
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("exactly.secrets.database", ARN + "exactly-db-app-AbCdEf");
        properties.put("exactly.destinations.billing.queue", QUEUE);
        properties.put("exactly.destinations.billing.type", "http");
        properties.put("exactly.destinations.billing.url", "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook");
        properties.put("exactly.destinations.billing.timeout-ms", "500");
        properties.put("exactly.destinations.billing.backoff-ms", "1000");
        properties.put("exactly.destinations.billing.backoff-cap-ms", "1000");
        properties.put("exactly.delivery.allowed-hosts", "127.0.0.1/32");
        Map<String, String> refs = Map.of("exactly.destinations.billing.signing-secret", ARN + "exactly-destination-billing-AbCdEf");
        secrets.put(SETTINGS, JSON.writeValueAsString(Map.of("properties", properties, "secrets", refs)));
        Map<String, String> env = new HashMap<>();
        env.put("QUARKUS_PROFILE", "lambda");
        env.put("QUARKUS_DATASOURCE_REACTIVE_URL", TestDatabase.reactiveUrl(database));
        env.put("EXACTLY_AUTH_API_KEY_SHA256", HexFormat.of().formatHex(
                MessageDigest.getInstance("SHA-256").digest(Api.TEST_API_KEY.getBytes(StandardCharsets.UTF_8))));
        env.put("EXACTLY_SECRETS_DOCUMENT", SETTINGS);
        env.put("EXACTLY_SECRETS_ENDPOINT", secrets.endpoint());
        env.put("EXACTLY_INVOKE_ENDPOINT", lambda.endpoint());
        return env;
    }

    private static JsonNode push(String transactionId, String payload) throws Exception {
        return push(QUEUE, transactionId, payload);
    }

    private static JsonNode push(String queue, String transactionId, String payload) throws Exception {
        String body = JSON.writeValueAsString(Map.of("items", List.of(Map.of("queue", queue, "partition", "p1",
                "transactionId", transactionId, "payload", JSON.readTree(payload)))));
        RuntimeApiServer.Outcome o = runtime.invoke(ApiGatewayEvents.request("POST", "/api/v1/push")
                .header("authorization", "Bearer " + Api.TEST_API_KEY).json(body).build(), TIMEOUT);
        assertNotNull(o.response(), "the push failed: " + o.error() + "\n" + function.output());
        JsonNode r = JSON.readTree(o.response());
        assertEquals(200, r.path("statusCode").asInt(), r.toString());
        JsonNode answer = JSON.readTree(r.path("body").asText());
        assertEquals("queued", answer.at("/results/0/status").asText(), answer.toString());
        return answer.at("/results/0");
    }

    private static void await(String what, BooleanSupplier done) throws InterruptedException {
        long until = System.nanoTime() + TIMEOUT.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > until) {
                throw new AssertionError("waited " + TIMEOUT.toSeconds() + " s for " + what + "; received " + received
                        + "; invocations " + lambda.calls() + "; drains " + drains + "\n" + function.output());
            }
            Thread.sleep(5);
        }
    }

    private static List<Received> receivedFor(String id) {
        return received.stream().filter(r -> id.equals(r.webhookId())).toList();
    }

    @Test
    @Order(1)
    void aPushIsDeliveredThroughTheFunctionsOwnAsynchronousInvocation() throws Exception {
        long t0 = System.nanoTime();
        JsonNode pushed = push("order-1", "{\"total\":42}");
        String id = pushed.path("messageId").asText();
        await("the delivery of " + id, () -> receivedFor(id).size() == 1);
        long deliveredMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);

        Received r = receivedFor(id).get(0);
        assertTrue(r.verified(), "the Standard Webhooks library verifies the signature: " + r);
        assertEquals(1, r.attempt());
        assertEquals("{\"total\":42}", r.body());
        // the push asked for one drain of its queue: Lambda Invoke, asynchronous, on the ARN it runs as
        assertEquals(1, lambda.calls().size(), lambda.calls().toString());
        FakeLambdaInvoke.Call call = lambda.calls().get(0);
        assertEquals(FUNCTION_ARN, call.functionName());
        assertEquals("Event", call.invocationType());
        assertTrue(call.signed(), "signed with SigV4 by the function role's credentials");
        assertEquals(JSON.readTree("{\"exactly\":\"deliver\",\"queue\":\"orders\"}"), JSON.readTree(call.payload()));
        await("the drain's answer", () -> drains.size() == 1);
        JsonNode report = JSON.readTree(drains.get(0).response());
        assertTrue(report.path("batches").asLong() >= 1, report.toString());
        assertEquals(false, report.path("more").asBoolean(), report.toString());
        System.out.printf("LambdaDeliveryIT: push to delivery through the self-invocation: %d ms (runtime client on loopback)%n",
                deliveredMs);
    }

    @Test
    @Order(2)
    void pushesInOneQueueAreDeliveredOnceEachInOffsetOrder() throws Exception {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(push("batch-" + i, "{\"n\":" + i + "}").path("messageId").asText());
        }
        await("five deliveries", () -> ids.stream().allMatch(id -> receivedFor(id).size() == 1));
        List<String> order = received.stream().map(Received::webhookId).filter(ids::contains).toList();
        assertEquals(ids, order, "offset order");
        // debounced: never more Invoke calls than stores
        assertTrue(lambda.calls().size() <= 1 + ids.size(), lambda.calls().toString());
    }

    @Test
    @Order(3)
    void aFailingReceiverIsParkedPastTheDeadlineAndTheScheduledDrainDeliversItOnceItIsBack() throws Exception {
        runtime.timeoutMillis(5_000); // an invocation has 5 s: after a failed attempt the 1 s backoff does not fit
        answer = 503;
        int drainsBefore = drains.size();
        String id = push("down-1", "{\"while\":\"down\"}").path("messageId").asText();
        await("the first attempt", () -> receivedFor(id).size() == 1);
        await("the drain's end", () -> drains.size() > drainsBefore);
        await("the parked partition", () -> count("SELECT count(*) FROM exactly.destination_parked WHERE destination = 'billing'") == 1);
        answer = 204;
        await("the retry's due time", () -> count("SELECT count(*) FROM exactly.destination_parked WHERE due_at <= now()") == 1);

        // the schedule's event: every destination
        RuntimeApiServer.Outcome sweep = runtime.invoke("{\"exactly\":\"deliver\"}".getBytes(StandardCharsets.UTF_8), TIMEOUT);
        assertNotNull(sweep.response(), sweep.error());
        List<Received> got = receivedFor(id);
        assertEquals(2, got.size(), got.toString());
        assertEquals(503, got.get(0).answered());
        assertEquals(2, got.get(1).attempt(), "the attempt count goes on under the same lease: " + got);
        assertEquals(204, got.get(1).answered());
        assertTrue(got.get(1).verified());
        assertEquals(0, count("SELECT count(*) FROM exactly.destination_parked"));
        assertEquals(0, count("SELECT count(*) FROM exactly.destination_dead_letters"));
        // the lease never expired: the group's delivery count stayed at its first delivery
        assertEquals(0, count("SELECT count(*) FROM exactly.deliveries WHERE consumer_group = 'destination:billing' AND attempts > 1"));
        runtime.timeoutMillis(30_000);
    }

    /**
     * Prints, warm, the median push-to-delivery time and the median time of the push invocation
     * itself, into the queue with the destination (the push asks for a drain: one statement and,
     * unless a drain of the queue runs, an Invoke call) and into a queue without any (the statement
     * only). Asserts no timing: this machine is shared, and the Invoke API is a loopback stub.
     */
    @Test
    @Order(4)
    void warmPushToDeliveryLatency() throws Exception {
        int n = 20;
        long[] delivered = new long[n];
        long[] withDestination = new long[n];
        long[] without = new long[n];
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            push("plain", "plain-" + i, "{\"n\":" + i + "}");
            without[i] = System.nanoTime() - t0;
        }
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            String id = push("warm-" + i, "{\"n\":" + i + "}").path("messageId").asText();
            withDestination[i] = System.nanoTime() - t0;
            await("the delivery of " + id, () -> receivedFor(id).stream().anyMatch(r -> r.answered() == 204));
            delivered[i] = System.nanoTime() - t0;
        }
        System.out.printf("LambdaDeliveryIT: warm, median of %d: push to delivery %.1f ms; push invocation %.1f ms into the queue "
                        + "with a destination, %.1f ms into one without (runtime client, Invoke stub and receiver on loopback)%n",
                n, median(delivered), median(withDestination), median(without));
    }

    @Test
    @Order(5)
    void aPushIntoAQueueWithoutADestinationAsksForNoDrainAndADestinationAddedAfterwardsIsDelivered() throws Exception {
        String queue = "added-later";
        String askCalls = "SELECT coalesce(sum(calls), 0) FROM pg_stat_user_functions "
                + "WHERE schemaname = 'exactly' AND funcname = 'ask_drains'";
        long before = settledCount(askCalls);
        for (int i = 0; i < 3; i++) {
            push(queue, "before-" + i, "{\"n\":" + i + "}");
        }
        assertEquals(before, settledCount(askCalls), "stores into a queue without a destination ran exactly.ask_drains");

        RuntimeApiServer.Outcome put = runtime.invoke(ApiGatewayEvents.request("PUT", "/api/v1/queues/" + queue + "/destinations/later")
                .header("authorization", "Bearer " + Api.TEST_API_KEY)
                .json("{\"url\":\"http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook\",\"signingSecret\":\""
                        + SIGNING_SECRET + "\"}").build(), TIMEOUT);
        assertNotNull(put.response(), "the PUT failed: " + put.error() + "\n" + function.output());
        assertEquals(201, JSON.readTree(put.response()).path("statusCode").asInt(), put.response());
        String id = push(queue, "after", "{\"n\":3}").path("messageId").asText();
        await("the delivery of " + id + " to the destination added after the first stores",
                () -> receivedFor(id).stream().anyMatch(r -> r.answered() == 204 && r.verified()));
        assertTrue(settledCount(askCalls) > before, "the store after the destination was added asked for no drain");
    }

    /**
     * A statistics count once the function's sessions have reported theirs: a session reports its
     * counters at most once a second, and within 10 s of going idle, so the figures (with the rows
     * inserted, which every store changes) are read until they stood still for 11 s.
     */
    private static long settledCount(String sql) throws InterruptedException {
        String activity = "SELECT (SELECT coalesce(sum(calls), 0) FROM pg_stat_user_functions) "
                + "+ (SELECT coalesce(sum(n_tup_ins + n_tup_upd), 0) FROM pg_stat_user_tables)";
        long last = count(activity);
        long stillSince = System.nanoTime();
        long until = System.nanoTime() + TIMEOUT.toNanos();
        while (System.nanoTime() - stillSince < TimeUnit.SECONDS.toNanos(11)) {
            if (System.nanoTime() > until) {
                throw new AssertionError("the statistics did not stand still within " + TIMEOUT.toSeconds() + " s");
            }
            Thread.sleep(250);
            long now = count(activity);
            if (now != last) {
                last = now;
                stillSince = System.nanoTime();
            }
        }
        return count(sql);
    }

    private static double median(long[] nanos) {
        long[] s = nanos.clone();
        java.util.Arrays.sort(s);
        return s[s.length / 2] / 1e6;
    }

    private static long count(String sql) {
        try (Connection c = DriverManager.getConnection(TestDatabase.jdbcUrl(database), "postgres", "");
             Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getLong(1);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
