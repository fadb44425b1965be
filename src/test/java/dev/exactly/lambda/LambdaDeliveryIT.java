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
import dev.exactly.testing.FakeEventBridge;
import dev.exactly.testing.MotoServer;
import dev.exactly.testing.TestDatabase;
import java.io.IOException;
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
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * Destinations in the Lambda shape, with target/function.zip under the AWS Lambda runtime
 * interface client (as {@link LambdaRuntimeIT}): a destination configured as infra/terraform
 * configures it (its settings in the settings document, its signing secret a Secrets Manager
 * reference), an HTTP receiver on loopback that verifies each request with the Standard Webhooks
 * library, and the Lambda Invoke API served on loopback ({@link FakeLambdaInvoke}), which hands
 * each asynchronous invocation the function makes of itself to the same runtime API, as Lambda
 * would run it. A push through an API Gateway event is then delivered without any schedule; a
 * receiver that fails has its partition parked past the invocation's deadline and delivered by
 * the scheduled drain once it is back, with the same webhook-id. Drains also deliver to the other
 * types, configured the same way: an {@code sqs} destination on a standard and on a FIFO queue of
 * moto's server ({@link MotoServer}, on 127.0.0.2; those tests are skipped where it is absent), an
 * {@code eventbridge} one to {@link FakeEventBridge}, and an unordered ({@code ordered=false}) HTTP
 * one to a receiver that counts the requests it is answering at once. The AWS SDK in the function
 * signs with the credentials of the environment the runtime client gives it. One test starts a
 * second function instance, on a runtime API of its own, to store while the first one drains.
 *
 * <p>Prints the push-to-delivery time of one push. The one timing asserted is a wide bound: a
 * message delivered within 3 s while another partition's receiver takes 8 s.
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
    private static final String SQS_STANDARD = "to-sqs";
    private static final String SQS_FIFO = "to-fifo";
    private static final String EVENTS = "to-bus";
    private static final String LOOSE = "loose";
    /** The SQS queues' URLs as Terraform takes them; moto_server finds a queue by the URL's last segment. */
    private static final String SQS_URL = "https://sqs.eu-west-1.amazonaws.com/123456789012/";
    /** In another region than the function's AWS_REGION (eu-west-1): the destination's region is the ARN's. */
    private static final String BUS_ARN = "arn:aws:events:us-east-2:123456789012:event-bus/orders";
    private static final String FUNCTION_ARN = "arn:aws:lambda:eu-west-1:123456789012:function:exactly:live";

    /** One request the receiver got. */
    record Received(String webhookId, int attempt, String body, boolean verified, int answered) {
    }

    private static RuntimeApiServer runtime;
    private static FakeSecretsManager secrets;
    private static FakeLambdaInvoke lambda;
    private static FunctionProcess function;
    private static HttpServer receiver;
    /** Answers {@code /slow} after 3 s with {@link #slowAnswer}. */
    private static HttpServer slowReceiver;
    private static String database;
    private static final List<Received> received = new CopyOnWriteArrayList<>();
    private static final List<RuntimeApiServer.Outcome> drains = new CopyOnWriteArrayList<>();
    private static volatile int answer = 204;
    /** How long the receiver of {@code /hook} waits before it answers (ms). */
    private static volatile int delayMs = 0;
    /** The transactionIds whose first attempt {@code /hook} answers 503 (later ones as {@link #answer}). */
    private static final Set<String> failFirst = ConcurrentHashMap.newKeySet();
    /** What {@code /slow} answers, after 3 s. */
    private static volatile int slowAnswer = 503;
    /**
     * Answers {@code /paced} on threads of its own, several at once: after 8 s a body with
     * {@code "slow"}, at once any other.
     */
    private static HttpServer pacedReceiver;
    /** When {@code /paced} got its last slow request (System.nanoTime), or 0. */
    private static volatile long slowBegan;
    /** The environment the function instances get. */
    private static Map<String, String> environment;
    /** A second function instance, started by the test that needs two, and its runtime API. */
    private static RuntimeApiServer runtime2;
    private static FunctionProcess function2;
    /** What {@code /down} gets, in order: its receiver answers each at once with 503. */
    private static final List<Received> downReceived = new CopyOnWriteArrayList<>();

    /** The moto_server of the sqs destinations; null where it is absent, {@link #motoAbsent} saying why. */
    private static MotoServer moto;
    private static String motoAbsent;
    private static SqsClient sqs;
    private static String standardQueueUrl;
    private static String fifoQueueUrl;
    private static FakeEventBridge eventBridge;
    /** The unordered destination's receiver: answers after 200 ms, on up to 16 threads. */
    private static HttpServer looseReceiver;
    private static final List<Received> looseReceived = new CopyOnWriteArrayList<>();
    private static final AtomicInteger looseInFlight = new AtomicInteger();
    private static final AtomicInteger looseMostInFlight = new AtomicInteger();

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
                boolean verified = verified(ex.getRequestHeaders(), body);
                int attempt = Integer.parseInt(ex.getRequestHeaders().getFirst("Exactly-Attempt"));
                String txn = ex.getRequestHeaders().getFirst("Exactly-Transaction-Id");
                int status = attempt == 1 && txn != null && failFirst.contains(txn) ? 503 : answer;
                if (delayMs > 0) {
                    try {
                        Thread.sleep(delayMs);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                received.add(new Received(ex.getRequestHeaders().getFirst("webhook-id"), attempt,
                        new String(body, StandardCharsets.UTF_8), verified, status));
                ex.sendResponseHeaders(status, -1);
            }
        });
        receiver.createContext("/down", ex -> {
            try (ex) {
                byte[] body = ex.getRequestBody().readAllBytes();
                downReceived.add(new Received(ex.getRequestHeaders().getFirst("webhook-id"),
                        Integer.parseInt(ex.getRequestHeaders().getFirst("Exactly-Attempt")),
                        new String(body, StandardCharsets.UTF_8), verified(ex.getRequestHeaders(), body), 503));
                ex.sendResponseHeaders(503, -1);
            }
        });
        // a server of its own: the JDK's server runs its handlers on one thread, and /hook must not wait for /slow
        slowReceiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        slowReceiver.createContext("/slow", ex -> {
            try (ex) {
                byte[] body = ex.getRequestBody().readAllBytes();
                boolean verified = verified(ex.getRequestHeaders(), body);
                int status = slowAnswer;
                Thread.sleep(3_000);
                received.add(new Received(ex.getRequestHeaders().getFirst("webhook-id"),
                        Integer.parseInt(ex.getRequestHeaders().getFirst("Exactly-Attempt")),
                        new String(body, StandardCharsets.UTF_8), verified, status));
                ex.sendResponseHeaders(status, -1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        slowReceiver.start();
        receiver.start();
        try {
            moto = MotoServer.start("127.0.0.2");
            sqs = moto.sqs(Region.EU_WEST_1);
            standardQueueUrl = MotoServer.createQueue(sqs, "exactly-standard", false);
            fifoQueueUrl = MotoServer.createQueue(sqs, "exactly-orders", true);
        } catch (IOException e) {
            motoAbsent = MotoServer.ABSENT + " (" + e.getMessage() + ")";
        }
        eventBridge = new FakeEventBridge("127.0.0.2");
        looseReceiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        looseReceiver.setExecutor(Executors.newFixedThreadPool(16));
        looseReceiver.createContext("/loose", ex -> {
            looseMostInFlight.accumulateAndGet(looseInFlight.incrementAndGet(), Math::max);
            try (ex) {
                byte[] body = ex.getRequestBody().readAllBytes();
                boolean verified = verified(ex.getRequestHeaders(), body);
                Thread.sleep(200);
                looseReceived.add(new Received(ex.getRequestHeaders().getFirst("webhook-id"),
                        Integer.parseInt(ex.getRequestHeaders().getFirst("Exactly-Attempt")),
                        new String(body, StandardCharsets.UTF_8), verified, 204));
                looseInFlight.decrementAndGet();
                ex.sendResponseHeaders(204, -1);
            } catch (InterruptedException e) {
                looseInFlight.decrementAndGet();
                Thread.currentThread().interrupt();
            }
        });
        looseReceiver.start();
        pacedReceiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        pacedReceiver.setExecutor(Executors.newFixedThreadPool(4));
        pacedReceiver.createContext("/paced", ex -> {
            try (ex) {
                byte[] body = ex.getRequestBody().readAllBytes();
                boolean verified = verified(ex.getRequestHeaders(), body);
                String text = new String(body, StandardCharsets.UTF_8);
                if (text.contains("slow")) {
                    slowBegan = System.nanoTime();
                    Thread.sleep(8_000);
                }
                received.add(new Received(ex.getRequestHeaders().getFirst("webhook-id"),
                        Integer.parseInt(ex.getRequestHeaders().getFirst("Exactly-Attempt")), text, verified, 204));
                ex.sendResponseHeaders(204, -1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        pacedReceiver.start();
        environment = environment();
        function = FunctionProcess.start("delivery", runtime, environment);
    }

    /** Whether the Standard Webhooks library verifies the request's signature with {@link #SIGNING_SECRET}. */
    private static boolean verified(com.sun.net.httpserver.Headers requestHeaders, byte[] body) {
        Map<String, List<String>> headers = new HashMap<>();
        requestHeaders.forEach((k, v) -> headers.put(k.toLowerCase(), v));
        try {
            new Webhook(SIGNING_SECRET).verify(new String(body, StandardCharsets.UTF_8), HttpHeaders.of(headers, (a, b) -> true));
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    @AfterAll
    static void stop() throws Exception {
        stopSecondInstance();
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
        if (slowReceiver != null) {
            slowReceiver.stop(0);
        }
        if (looseReceiver != null) {
            looseReceiver.stop(0);
            ((ExecutorService) looseReceiver.getExecutor()).shutdownNow();
        }
        if (pacedReceiver != null) {
            pacedReceiver.stop(0);
            ((ExecutorService) pacedReceiver.getExecutor()).shutdownNow();
        }
        if (eventBridge != null) {
            eventBridge.close();
        }
        if (sqs != null) {
            sqs.close();
        }
        if (moto != null) {
            moto.close();
        }
    }

    /**
     * As infra/terraform configures a destination (secrets.tf): its settings in the settings
     * document, its signing secret as a Secrets Manager reference; the loopback receiver allowed by
     * exactly.delivery.allowed-hosts, as are moto_server's and the PutEvents stand-in's (127.0.0.2),
     * named by the AWS destinations' endpoint and region settings. The Invoke endpoint is the test's.
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
        properties.put("exactly.delivery.allowed-hosts", "127.0.0.1/32,127.0.0.2/32");
        // the AWS types as Terraform writes them (the queue's regional URL, the bus's ARN), plus the
        // endpoint that reaches the loopback server (as for an interface endpoint without private DNS);
        // the region is the URL's or ARN's
        if (moto != null) {
            for (String[] d : new String[][] {{"to-sqs", SQS_STANDARD, SQS_URL + "exactly-standard"},
                    {"to-fifo", SQS_FIFO, SQS_URL + "exactly-orders.fifo"}}) {
                String key = "exactly.destinations." + d[0] + ".";
                properties.put(key + "queue", d[1]);
                properties.put(key + "type", "sqs");
                properties.put(key + "queue-url", d[2]);
                properties.put(key + "endpoint", moto.endpoint());
            }
        }
        properties.put("exactly.destinations.to-bus.queue", EVENTS);
        properties.put("exactly.destinations.to-bus.type", "eventbridge");
        properties.put("exactly.destinations.to-bus.event-bus", BUS_ARN);
        properties.put("exactly.destinations.to-bus.event-source", "com.example.exactly");
        properties.put("exactly.destinations.to-bus.detail-type", "order.event");
        properties.put("exactly.destinations.to-bus.endpoint", eventBridge.endpoint());
        properties.put("exactly.destinations.loose.queue", LOOSE);
        properties.put("exactly.destinations.loose.url", "http://127.0.0.1:" + looseReceiver.getAddress().getPort() + "/loose");
        properties.put("exactly.destinations.loose.ordered", "false");
        Map<String, String> refs = Map.of("exactly.destinations.billing.signing-secret", ARN + "exactly-destination-billing-AbCdEf",
                "exactly.destinations.loose.signing-secret", ARN + "exactly-destination-billing-AbCdEf");
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
        return push(queue, "p1", transactionId, payload);
    }

    private static JsonNode push(String queue, String partition, String transactionId, String payload) throws Exception {
        List<Map<String, Object>> items = List.of(Map.of("queue", queue, "partition", partition,
                "transactionId", transactionId, "payload", JSON.readTree(payload)));
        return pushAll(items).get(0);
    }

    /** One push invocation of several items; expects each queued, and returns the results. */
    private static JsonNode pushAll(List<Map<String, Object>> items) throws Exception {
        return pushAll(runtime, items);
    }

    /** As {@link #pushAll(List)}, through the function instance polling {@code api}. */
    private static JsonNode pushAll(RuntimeApiServer api, List<Map<String, Object>> items) throws Exception {
        String body = JSON.writeValueAsString(Map.of("items", items));
        RuntimeApiServer.Outcome o = api.invoke(ApiGatewayEvents.request("POST", "/api/v1/push")
                .header("authorization", "Bearer " + Api.TEST_API_KEY).json(body).build(), TIMEOUT);
        assertNotNull(o.response(), "the push failed: " + o.error() + "\n" + function.output());
        JsonNode r = JSON.readTree(o.response());
        assertEquals(200, r.path("statusCode").asInt(), r.toString());
        JsonNode answer = JSON.readTree(r.path("body").asText());
        for (JsonNode result : answer.path("results")) {
            assertEquals("queued", result.path("status").asText(), answer.toString());
        }
        assertEquals(items.size(), answer.path("results").size(), answer.toString());
        return answer.path("results");
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
        // a drain that ended with work left asks for the next one at once, which may resume the partition
        // itself once the retry is due (docs/destinations.md, "Retries across invocations"): then it is
        // already delivered when the schedule's event comes, and the checks below hold the same
        await("the retry's due time", () -> count("SELECT count(*) FROM exactly.destination_parked WHERE due_at <= now()") == 1
                || receivedFor(id).size() == 2);

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

        putHookDestination(queue, "later", "");
        String id = push(queue, "after", "{\"n\":3}").path("messageId").asText();
        await("the delivery of " + id + " to the destination added after the first stores",
                () -> receivedFor(id).stream().anyMatch(r -> r.answered() == 204 && r.verified()));
        assertTrue(settledCount(askCalls) > before, "the store after the destination was added asked for no drain");
    }

    /**
     * Messages pushed into the queues of the two sqs destinations arrive in the SQS queues of
     * moto_server, sent by the drains the pushes invoked: each once, with its attributes; on the
     * FIFO queue the group {@code <queue>/<partition>}, the messageId as deduplication id, and
     * offset order per group.
     */
    @Test
    @Order(6)
    void sqsDestinationsOnAStandardAndAFifoQueueAreDeliveredByDrains() throws Exception {
        Assumptions.assumeTrue(moto != null, motoAbsent);
        Map<String, String> ids = new HashMap<>();
        Map<String, String> payloads = new HashMap<>();
        Map<String, String> queues = new HashMap<>();
        for (int i = 0; i < 6; i++) {
            String queue = i % 2 == 0 ? SQS_FIFO : SQS_STANDARD;
            String txn = "sqs-" + i;
            String payload = "{\"n\":" + i + ",\"s\":\"é ✓\"}"; // as the push request carries it
            payloads.put(txn, payload);
            queues.put(txn, queue);
            ids.put(txn, push(queue, "p" + (i % 4), txn, payload).path("messageId").asText());
        }
        List<Message> fifo = MotoServer.receive(sqs, fifoQueueUrl, 3);
        List<Message> standard = MotoServer.receive(sqs, standardQueueUrl, 3);
        assertEquals(3, fifo.size(), "each message once: " + fifo);
        assertEquals(3, standard.size(), "each message once: " + standard);
        Map<String, Long> lastOffset = new HashMap<>();
        Set<String> seen = new HashSet<>();
        for (Message m : fifo) {
            String txn = MotoServer.attr(m, "transactionId");
            checkSqsMessage(m, SQS_FIFO, ids, payloads, queues);
            assertTrue(seen.add(txn), "once: " + txn);
            String group = m.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID);
            assertEquals(SQS_FIFO + "/" + MotoServer.attr(m, "partition"), group);
            assertEquals(ids.get(txn), m.attributes().get(MessageSystemAttributeName.MESSAGE_DEDUPLICATION_ID));
            long offset = Long.parseLong(MotoServer.attr(m, "offset"));
            Long before = lastOffset.put(group, offset);
            assertTrue(before == null || offset > before, "offsets increase per message group: " + before + " then " + offset);
        }
        for (Message m : standard) {
            String txn = MotoServer.attr(m, "transactionId");
            checkSqsMessage(m, SQS_STANDARD, ids, payloads, queues);
            assertTrue(seen.add(txn), "once: " + txn);
            assertEquals(null, m.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID), "no group on a standard queue");
        }
        assertEquals(ids.keySet(), seen);
        // sent by drains of those queues, which the pushes invoked through the Invoke API
        for (String queue : List.of(SQS_FIFO, SQS_STANDARD)) {
            assertTrue(lambda.calls().stream().anyMatch(c -> c.payload().contains("\"queue\":\"" + queue + "\"")),
                    "a drain of " + queue + " was invoked: " + lambda.calls());
        }
        await("the destinations' figures", () -> count("SELECT coalesce(sum(delivered), 0) FROM exactly.destination_state "
                + "WHERE name IN ('to-sqs', 'to-fifo')") == 6);
        assertEquals(0, count("SELECT count(*) FROM exactly.destination_dead_letters WHERE destination IN ('to-sqs', 'to-fifo')"));
    }

    private static void checkSqsMessage(Message m, String queue, Map<String, String> ids, Map<String, String> payloads,
            Map<String, String> queues) {
        String txn = MotoServer.attr(m, "transactionId");
        assertEquals(queue, queues.get(txn), "the message went to its destination's queue: " + m);
        assertEquals(ids.get(txn), MotoServer.attr(m, "messageId"), "the original messageId");
        assertEquals(queue, MotoServer.attr(m, "queue"));
        assertEquals("Number", m.messageAttributes().get("offset").dataType());
        assertEquals("1", MotoServer.attr(m, "attempt"));
        assertEquals("json", MotoServer.attr(m, "payloadEncoding"));
        assertEquals(null, MotoServer.attr(m, "contentType"), "a pushed payload has no media type of its own");
        assertEquals(payloads.get(txn), m.body(), "the stored payload, unchanged");
    }

    /**
     * Messages pushed into the eventbridge destination's queue are sent by drains as one PutEvents
     * entry each to the stand-in, signed with the credentials (and session token) of the function's
     * environment for the bus ARN's region.
     */
    @Test
    @Order(7)
    void anEventBridgeDestinationIsDeliveredByDrains() throws Exception {
        Map<String, String> ids = new HashMap<>();
        for (int i = 0; i < 3; i++) {
            ids.put("eb-" + i, push(EVENTS, "p" + (i % 2), "eb-" + i, "{\"n\":" + i + "}").path("messageId").asText());
        }
        List<FakeEventBridge.Received> got = eventBridge.received();
        await("three events", () -> got.size() >= 3);
        Thread.sleep(300); // anything extra would arrive now
        assertEquals(3, got.size(), "each message once: " + got);
        Set<String> seen = new HashSet<>();
        for (FakeEventBridge.Received r : got) {
            assertEquals("AWSEvents.PutEvents", r.h("X-Amz-Target"));
            assertTrue(r.h("Authorization").startsWith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLETESTONLY1/"), r.h("Authorization"));
            assertTrue(r.h("Authorization").contains("/us-east-2/events/aws4_request"), "the bus ARN's region: " + r.h("Authorization"));
            assertEquals("test-only-session-token", r.h("X-Amz-Security-Token"), "the role's session token");
            assertEquals(1, r.body().get("Entries").size(), "one entry per message");
            assertEquals(BUS_ARN, r.entry().get("EventBusName").asText());
            assertEquals("com.example.exactly", r.entry().get("Source").asText());
            assertEquals("order.event", r.entry().get("DetailType").asText());
            JsonNode d = r.detail();
            String txn = d.get("transactionId").asText();
            assertTrue(seen.add(txn), "once: " + txn);
            assertEquals(ids.get(txn), d.get("messageId").asText(), "the original messageId");
            assertEquals(EVENTS, d.get("queue").asText());
            assertEquals(1, d.get("attempt").asInt());
            assertEquals("json", d.get("payloadEncoding").asText());
            assertEquals(JSON.readTree("{\"n\":" + txn.substring(3) + "}"), d.get("payload"));
        }
        assertTrue(lambda.calls().stream().anyMatch(c -> c.payload().contains("\"queue\":\"" + EVENTS + "\"")),
                "a drain of " + EVENTS + " was invoked: " + lambda.calls());
    }

    /**
     * An unordered destination: eight messages of one partition, stored by one push, are delivered
     * by its drain each once, with several of them in flight at the same moment (the receiver
     * answers each after 200 ms).
     */
    @Test
    @Order(8)
    void anUnorderedDestinationIsDeliveredByDrainsSeveralOfAPartitionInFlight() throws Exception {
        List<Map<String, Object>> items = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            items.add(Map.of("queue", LOOSE, "partition", "p1", "transactionId", "loose-" + i, "payload", Map.of("n", i)));
        }
        List<String> ids = new ArrayList<>();
        pushAll(items).forEach(r -> ids.add(r.path("messageId").asText()));
        await("eight deliveries", () -> looseReceived.size() >= 8);
        Thread.sleep(300); // anything extra would arrive now
        assertEquals(8, looseReceived.size(), looseReceived.toString());
        assertEquals(Set.copyOf(ids), looseReceived.stream().map(Received::webhookId).collect(Collectors.toSet()),
                "each message once");
        for (Received r : looseReceived) {
            assertEquals(1, r.attempt(), r.toString());
            assertTrue(r.verified(), "signed: " + r);
        }
        assertTrue(looseMostInFlight.get() > 1, "sends of one partition overlap: at most " + looseMostInFlight.get() + " in flight");
        await("the destination's figures", () -> count("SELECT delivered FROM exactly.destination_state WHERE name = 'loose'") == 8);
    }

    /**
     * A drain whose next attempt would not end before its deadline stops there with work left, and
     * asks for the next drain at once instead of leaving the partition to the schedule. The function
     * has 5 s (a drain 2 s, less its 1 s margin), the receiver answers each message after 300 ms,
     * the destination's timeout is 500 ms: a drain sends two or three of one partition's six
     * messages, and the drains it asks for send the rest, in offset order, each once, first attempt.
     */
    @Test
    @Order(9)
    void aDrainCutShortByItsDeadlineAsksForTheNextAtOnce() throws Exception {
        runtime.timeoutMillis(5_000);
        delayMs = 300;
        try {
            int drainsBefore = drains.size();
            List<Map<String, Object>> items = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                items.add(Map.of("queue", QUEUE, "partition", "cut", "transactionId", "cut-" + i, "payload", Map.of("n", i)));
            }
            List<String> ids = new ArrayList<>();
            pushAll(items).forEach(r -> ids.add(r.path("messageId").asText()));
            await("six deliveries without the schedule", () -> ids.stream().allMatch(id -> receivedFor(id).size() == 1));
            List<String> order = received.stream().map(Received::webhookId).filter(ids::contains).toList();
            assertEquals(ids, order, "offset order, each once");
            for (String id : ids) {
                assertEquals(1, receivedFor(id).get(0).attempt(), "an attempt that was not made is not counted: " + receivedFor(id));
            }
            List<RuntimeApiServer.Outcome> these = List.copyOf(drains.subList(drainsBefore, drains.size()));
            assertTrue(these.size() >= 2, "the six messages took more than one drain: " + these);
            boolean more = false;
            for (RuntimeApiServer.Outcome o : these) {
                assertNotNull(o.response(), o.error());
                more |= JSON.readTree(o.response()).path("more").asBoolean();
            }
            assertTrue(more, "a drain that stopped with work left said so: " + these);
            assertEquals(0, count("SELECT count(*) FROM exactly.destination_parked"));
        } finally {
            delayMs = 0;
            runtime.timeoutMillis(30_000);
        }
    }

    /**
     * A destination whose timeoutMs is longer than a drain (30 s against a function of 5 s) is still
     * delivered: in a drain an attempt waits at most half the drain's time less its margin.
     */
    @Test
    @Order(10)
    void aDestinationWhoseTimeoutIsLongerThanADrainIsDelivered() throws Exception {
        runtime.timeoutMillis(5_000);
        try {
            String queue = "long-timeout";
            putHookDestination(queue, "patient", ",\"timeoutMs\":30000");
            String id = push(queue, "patient-1", "{\"n\":1}").path("messageId").asText();
            await("the delivery of " + id, () -> receivedFor(id).stream().anyMatch(r -> r.answered() == 204 && r.verified()));
            assertEquals(1, receivedFor(id).size(), receivedFor(id).toString());
        } finally {
            runtime.timeoutMillis(30_000);
        }
    }

    /**
     * A drain of one queue also runs the redrives due of other queues' destinations; it answers only
     * once they ended (nothing runs in an instance after its invocation answered, and a redrive cut
     * off there would be claimed and sent again by a later drain). Here the redriven destination's
     * receiver takes 3 s, the drain's own queue's receiver answers at once.
     */
    @Test
    @Order(11)
    void aRedriveThatADrainOfAnotherQueueStartedEndsWithinIt() throws Exception {
        String queue = "redrive-src";
        putDestination(queue, "redriven", slowReceiver, "/slow", ",\"maxAttempts\":1,\"timeoutMs\":5000");
        slowAnswer = 503;
        String id = push(queue, "rd-1", "{\"rd\":1}").path("messageId").asText();
        await("the dead letter", () -> count("SELECT count(*) FROM exactly.destination_dead_letters WHERE destination = 'redriven'") == 1);
        slowAnswer = 204;
        RuntimeApiServer.Outcome redrive = runtime.invoke(ApiGatewayEvents.request("POST", "/api/v1/queues/" + queue
                + "/destinations/redriven/redrive").header("authorization", "Bearer " + Api.TEST_API_KEY).json("{\"limit\":10}").build(), TIMEOUT);
        assertNotNull(redrive.response(), redrive.error());
        assertEquals(200, JSON.readTree(redrive.response()).path("statusCode").asInt(), redrive.response());
        Thread.sleep(1_100); // past the debounce of the drains before: the next store asks for one
        int drainsBefore = drains.size();
        push(QUEUE, "trigger", "trigger-1", "{\"trigger\":1}");
        await("the drain of " + QUEUE, () -> drains.size() > drainsBefore);
        assertTrue(receivedFor(id).stream().anyMatch(r -> r.answered() == 204),
                "the redrive the drain started was delivered before the drain answered: " + receivedFor(id));
        await("the redriven message no longer a dead letter",
                () -> count("SELECT count(*) FROM exactly.destination_dead_letters WHERE destination = 'redriven'") == 0);
    }

    /**
     * A retry whose short backoff a drain could not wait for, parked at the drain's end, is not left
     * to the schedule: the drain asks for the next one at once, which waits for it. The function has
     * 5 s (a drain 2 s less its 1 s margin, an attempt at most 500 ms); the receiver answers after
     * 300 ms and refuses the third message's first attempt (503); the backoff is 400 ms. That retry,
     * at about 0.9 s, would end past the drain's margin: parked. The test sends no schedule.
     */
    @Test
    @Order(12)
    void aShortBackoffParkedAtADrainsEndIsResumedWithoutTheSchedule() throws Exception {
        runtime.timeoutMillis(5_000);
        delayMs = 300;
        try {
            String queue = "short-backoff";
            putHookDestination(queue, "brief", ",\"timeoutMs\":500,\"backoffMs\":400,\"backoffCapMs\":400");
            failFirst.add("sb-2");
            List<Map<String, Object>> items = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                items.add(Map.of("queue", queue, "partition", "sb", "transactionId", "sb-" + i, "payload", Map.of("n", i)));
            }
            List<String> ids = new ArrayList<>();
            pushAll(items).forEach(r -> ids.add(r.path("messageId").asText()));
            await("the third message delivered on its second attempt, without the schedule",
                    () -> receivedFor(ids.get(2)).stream().anyMatch(r -> r.answered() == 204));
            List<Received> third = receivedFor(ids.get(2));
            assertEquals(List.of(503, 204), third.stream().map(Received::answered).toList(), third.toString());
            assertEquals(2, third.get(1).attempt(), third.toString());
            List<String> order = received.stream().filter(r -> r.answered() == 204).map(Received::webhookId)
                    .filter(ids::contains).toList();
            assertEquals(ids, order, "offset order, each delivered once");
            assertEquals(0, count("SELECT count(*) FROM exactly.destination_parked"));
        } finally {
            delayMs = 0;
            failFirst.clear();
            runtime.timeoutMillis(30_000);
        }
    }

    /**
     * A parked partition whose messages the queue's retention purged before a drain resumed it: the
     * drain that resumes it finds nothing left to send under its lease, releases the lease, and goes
     * on: a message stored after them in the same partition is delivered by that drain, not once
     * the lease runs out (a minute later).
     */
    @Test
    @Order(13)
    void aParkedPartitionWhoseMessagesWerePurgedIsReleasedAndTheDrainGoesOn() throws Exception {
        String queue = "purged";
        runtime.timeoutMillis(5_000); // a drain of 2 s: after a failed attempt the 1 s backoff does not fit
        try {
            putHookDestination(queue, "purgeable", ",\"timeoutMs\":500,\"backoffMs\":1000,\"backoffCapMs\":1000");
            answer = 503;
            String first = push(queue, "gone-1", "{\"n\":1}").path("messageId").asText();
            await("the first attempt", () -> receivedFor(first).size() == 1);
            await("the parked partition", () -> count("SELECT count(*) FROM exactly.destination_parked "
                    + "WHERE destination = 'purgeable' AND claimed_until IS NULL") == 1);
            // the queue's retention purges the parked message (the partition's only one so far)
            String partition = "(SELECT n.id FROM exactly.partition_names n JOIN exactly.queues q ON q.id = n.queue_id "
                    + "WHERE q.name = '" + queue + "' AND n.name = 'p1')";
            execute("UPDATE exactly.queues SET retention_seconds = 60 WHERE name = '" + queue + "'");
            execute("UPDATE exactly.messages SET created_at = created_at - interval '1 hour' WHERE partition_id = " + partition);
            assertEquals(1, count("SELECT purged_messages FROM exactly.purge_partition(" + partition + ", 100)"));
            answer = 204;
            await("the retry's due time", () -> count("SELECT count(*) FROM exactly.destination_parked "
                    + "WHERE destination = 'purgeable' AND due_at <= now()") == 1);

            String second = push(queue, "kept-2", "{\"n\":2}").path("messageId").asText();
            awaitWithin(Duration.ofSeconds(20), "the delivery of the message stored after the purged one, by the drain its "
                    + "store asked for", () -> receivedFor(second).stream().anyMatch(r -> r.answered() == 204));
            assertEquals(1, receivedFor(second).size(), receivedFor(second).toString());
            assertEquals(1, receivedFor(second).get(0).attempt());
            assertEquals(1, receivedFor(first).size(), "the purged message is not sent again: " + receivedFor(first));
            assertEquals(0, count("SELECT count(*) FROM exactly.destination_parked WHERE destination = 'purgeable'"));
            assertEquals(0, count("SELECT count(*) FROM exactly.destination_dead_letters WHERE destination = 'purgeable'"));
            assertTrue(function.output().lines().noneMatch(l -> l.contains("IndexOutOfBounds")), function.output());
        } finally {
            answer = 204;
            runtime.timeoutMillis(30_000);
        }
    }

    /**
     * A message stored, through another function instance, into one partition while a drain's
     * worker holds another partition of the same destination (its receiver takes 8 s) is delivered
     * by that drain within about exactly.delivery.poll-ms, not once the slow partition's round ends:
     * the drain looks for newly due partitions every poll-ms while its workers are busy, as the
     * server's timer does (the drain's mark kept the store from asking for a drain of its own). Two
     * instances, since the runtime client serves one invocation at a time: a push through the
     * draining instance would wait for the drain's end.
     */
    @Test
    @Order(14)
    void aMessageStoredThroughAnotherInstanceWhileADrainIsBusyIsDeliveredByItAtOnce() throws Exception {
        String queue = "paced";
        putDestination(queue, "paced", pacedReceiver, "/paced", ",\"timeoutMs\":10000");
        startSecondInstance();
        try {
            // the second instance warm: its first invocation's start-up does not count
            pushAll(runtime2, List.of(Map.of("queue", "plain", "partition", "p1", "transactionId", "warm-2", "payload", Map.of("n", 1))));
            slowBegan = 0;
            String slow = push(queue, "a", "slow-1", "{\"slow\":1}").path("messageId").asText();
            await("the slow partition's request", () -> slowBegan != 0);
            // the instance serves one invocation at a time: drains before this one have answered
            int drainsBefore = drains.size();
            String quick = pushAll(runtime2, List.of(Map.of("queue", queue, "partition", "b", "transactionId", "quick-1",
                    "payload", Map.of("quick", 1)))).get(0).path("messageId").asText();
            long stored = System.nanoTime();
            while (receivedFor(quick).isEmpty()) {
                if (System.nanoTime() - stored > TimeUnit.SECONDS.toNanos(3)) {
                    throw new AssertionError("the message of partition b waited more than 3 s for partition a's slow receiver "
                            + "(its request began " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - slowBegan) + " ms ago); received "
                            + received + "\n" + function.output());
                }
                Thread.sleep(5);
            }
            long deliveredMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stored);
            assertTrue(receivedFor(slow).isEmpty(), "partition a's request is still in flight: " + receivedFor(slow));
            assertEquals(1, receivedFor(quick).size(), receivedFor(quick).toString());
            assertTrue(receivedFor(quick).get(0).verified());
            await("the slow message's delivery", () -> !receivedFor(slow).isEmpty());
            await("the drain's answer", () -> drains.size() > drainsBefore);
            RuntimeApiServer.Outcome drain = drains.get(drainsBefore);
            assertNotNull(drain.response(), drain.error());
            assertEquals(false, JSON.readTree(drain.response()).path("more").asBoolean(), "nothing left: " + drain.response());
            assertEquals(1, receivedFor(slow).size(), receivedFor(slow).toString());
            assertEquals(1, receivedFor(quick).size(), "once: " + receivedFor(quick));
            assertEquals(0, count("SELECT count(*) FROM exactly.destination_parked"));
            System.out.printf("LambdaDeliveryIT: a message stored through a second instance during a busy drain: delivered %d ms "
                    + "after its push answered%n", deliveredMs);
        } finally {
            stopSecondInstance();
        }
    }

    /** Starts a second function instance on a runtime API of its own, and waits until it polls for work. */
    private static void startSecondInstance() throws Exception {
        runtime2 = new RuntimeApiServer();
        function2 = FunctionProcess.start("delivery-2", runtime2, environment);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (runtime2.firstNextNanos() == 0) {
            if (System.nanoTime() > until || !function2.alive()) {
                throw new AssertionError("the second function instance did not start:\n" + function2.output());
            }
            Thread.sleep(20);
        }
    }

    private static void stopSecondInstance() throws Exception {
        if (function2 != null) {
            function2.close();
            function2 = null;
        }
        if (runtime2 != null) {
            runtime2.close();
            runtime2 = null;
        }
    }

    /**
     * A redrive whose receiver still fails, with a backoff that outlasts each drain, goes on counting
     * its attempts from one drain to the next: with maxAttempts 2 it makes attempt 1 and attempt 2,
     * each once, and the message is a dead letter again (with 2 attempts), not tried from attempt 1
     * in every drain that takes it up.
     */
    @Test
    @Order(15)
    void aFailingRedriveCountsItsAttemptsAcrossDrainsAndIsDeadLetteredAgain() throws Exception {
        String queue = "redrive-twice";
        runtime.timeoutMillis(5_000); // a drain of 2 s: after a failed attempt the 1 s backoff does not fit
        try {
            putDestination(queue, "twice", receiver, "/down",
                    ",\"maxAttempts\":2,\"timeoutMs\":500,\"backoffMs\":1000,\"backoffCapMs\":1000");
            String id = push(queue, "twice-1", "{\"n\":1}").path("messageId").asText();
            String dead = "SELECT count(*) FROM exactly.destination_dead_letters WHERE destination = 'twice' "
                    + "AND redrive_requested_at IS NULL";
            sweepUntil("the dead letter", () -> count(dead) == 1);
            assertEquals(List.of(1, 2), attemptsAt(id), downReceived.toString());

            RuntimeApiServer.Outcome redrive = runtime.invoke(ApiGatewayEvents.request("POST", "/api/v1/queues/" + queue
                    + "/destinations/twice/redrive").header("authorization", "Bearer " + Api.TEST_API_KEY)
                    .json("{\"limit\":10}").build(), TIMEOUT);
            assertNotNull(redrive.response(), redrive.error());
            assertEquals(200, JSON.readTree(redrive.response()).path("statusCode").asInt(), redrive.response());
            // each drain that takes the redrive up makes one attempt: its backoff outlasts the drain
            sweepUntil("the redrive failed again", () -> count(dead) == 1 && attemptsAt(id).size() >= 4);
            Thread.sleep(1_500); // a further attempt, were one made, would arrive now
            sweep();
            assertEquals(List.of(1, 2, 1, 2), attemptsAt(id), "the redrive's attempts go on across drains: " + downReceived);
            assertEquals(2, count("SELECT attempts FROM exactly.destination_dead_letters WHERE destination = 'twice'"));
        } finally {
            runtime.timeoutMillis(30_000);
        }
    }

    /**
     * In the Lambda shape a resume, a replay and a redrive each ask for a drain of the destination's
     * queue at once (an asynchronous invocation), so their deliveries wait for no schedule: here no
     * scheduled drain runs at all.
     */
    @Test
    @Order(16)
    void aResumeAReplayAndARedriveAskForADrainAtOnce() throws Exception {
        String queue = "held";
        putHookDestination(queue, "held", ",\"maxAttempts\":1");
        String base = "/api/v1/queues/" + queue + "/destinations/held/";
        assertEquals(204, post(base + "pause", "{}"));
        String id = push(queue, "held-1", "{\"n\":1}").path("messageId").asText();
        Thread.sleep(1_500); // the drain the store asked for sends nothing: the destination is paused
        assertEquals(0, receivedFor(id).size(), receivedFor(id).toString());

        int calls = lambda.calls().size();
        assertEquals(204, post(base + "resume", "{}"));
        awaitWithin(Duration.ofSeconds(20), "the delivery after the resume", () -> receivedFor(id).size() == 1);
        assertTrue(lambda.calls().size() > calls, "the resume asked for a drain: " + lambda.calls());

        calls = lambda.calls().size();
        assertEquals(200, post(base + "replay", "{\"fromOffset\":0}"));
        awaitWithin(Duration.ofSeconds(20), "the delivery after the replay", () -> receivedFor(id).size() == 2);
        assertTrue(lambda.calls().size() > calls, "the replay asked for a drain: " + lambda.calls());

        // a dead letter (maxAttempts 1), then its redrive once the receiver answers again
        answer = 503;
        try {
            String failing = push(queue, "held-2", "{\"n\":2}").path("messageId").asText();
            await("the dead letter", () -> count("SELECT count(*) FROM exactly.destination_dead_letters "
                    + "WHERE destination = 'held'") == 1);
            await("the drain's end", () -> receivedFor(failing).size() == 1);
            answer = 204;
            calls = lambda.calls().size();
            assertEquals(200, post(base + "redrive", "{\"limit\":10}"));
            awaitWithin(Duration.ofSeconds(20), "the delivery of the redrive",
                    () -> receivedFor(failing).stream().anyMatch(r -> r.answered() == 204));
            assertTrue(lambda.calls().size() > calls, "the redrive asked for a drain: " + lambda.calls());
        } finally {
            answer = 204;
        }
    }

    /**
     * A destination deleted through another function instance while a drain delivers it: the
     * drain (which read the destinations at its start) must not send the destination's partitions
     * again from their first offset. A worker's pop for a group without cursors creates them at
     * offset 0; the drain's look every poll-ms starts one while the slow partition's worker waits.
     */
    @Test
    @Order(17)
    void aDestinationDeletedThroughAnotherInstanceDuringADrainIsNotSentItsHistoryAgain() throws Exception {
        String queue = "dropped-mid-drain";
        putDestination(queue, "dropped", pacedReceiver, "/paced", ",\"timeoutMs\":10000");
        List<String> old = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            old.add(push(queue, "old", "dropped-old-" + i, "{\"n\":" + i + "}").path("messageId").asText());
        }
        await("the first messages delivered", () -> old.stream().allMatch(id -> receivedFor(id).size() == 1));
        startSecondInstance();
        try {
            pushAll(runtime2, List.of(Map.of("queue", "plain", "partition", "p1", "transactionId", "warm-3", "payload", Map.of("n", 1))));
            Thread.sleep(1_500); // the drains asked for so far have ended
            slowBegan = 0;
            String slow = push(queue, "a", "dropped-slow-1", "{\"slow\":1}").path("messageId").asText();
            await("the slow partition's request", () -> slowBegan != 0);
            RuntimeApiServer.Outcome del = runtime2.invoke(ApiGatewayEvents.request("DELETE", "/api/v1/queues/" + queue
                    + "/destinations/dropped").header("authorization", "Bearer " + Api.TEST_API_KEY).build(), TIMEOUT);
            assertNotNull(del.response(), del.error());
            assertEquals(204, JSON.readTree(del.response()).path("statusCode").asInt(), del.response());
            Thread.sleep(4_000);
            for (String id : old) {
                assertEquals(1, receivedFor(id).size(), "a message delivered before the delete is not sent again to the "
                        + "deleted destination: " + receivedFor(id) + "\n" + function.output());
            }
            await("the slow message's request ended", () -> !receivedFor(slow).isEmpty());
            Thread.sleep(9_000);
            assertEquals(1, receivedFor(slow).size(), "the slow message once: " + receivedFor(slow));
        } finally {
            stopSecondInstance();
        }
    }

    /** The attempt numbers {@code /down} got for a message, in order. */
    private static List<Integer> attemptsAt(String id) {
        return downReceived.stream().filter(r -> id.equals(r.webhookId())).map(Received::attempt).toList();
    }

    /** Runs the schedule's drain (every destination) until {@code done}, for up to 40 s. */
    private static void sweepUntil(String what, BooleanSupplier done) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > until) {
                throw new AssertionError("drained for 40 s and no " + what + "; /down got " + downReceived
                        + "\n" + function.output());
            }
            sweep();
            Thread.sleep(200);
        }
    }

    /** The schedule's event: a drain of every destination; returns once it answered. */
    private static void sweep() throws Exception {
        RuntimeApiServer.Outcome o = runtime.invoke("{\"exactly\":\"deliver\"}".getBytes(StandardCharsets.UTF_8), TIMEOUT);
        assertNotNull(o.response(), o.error());
    }

    /** A POST to the function's API with a JSON body; returns the status. */
    private static int post(String path, String json) throws Exception {
        RuntimeApiServer.Outcome o = runtime.invoke(ApiGatewayEvents.request("POST", path)
                .header("authorization", "Bearer " + Api.TEST_API_KEY).json(json).build(), TIMEOUT);
        assertNotNull(o.response(), o.error());
        return JSON.readTree(o.response()).path("statusCode").asInt();
    }

    /** As {@link #await}, for at most {@code max}. */
    private static void awaitWithin(Duration max, String what, BooleanSupplier done) throws InterruptedException {
        long until = System.nanoTime() + max.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > until) {
                throw new AssertionError("waited " + max.toSeconds() + " s for " + what + "; received " + received
                        + "; invocations " + lambda.calls() + "; drains " + drains + "\n" + function.output());
            }
            Thread.sleep(5);
        }
    }

    /**
     * Creates a destination of {@code queue} through the function's API: signed, to the receiver's
     * {@code /hook}, with {@code more} (JSON members after a comma, or "") added to its settings.
     */
    private static void putHookDestination(String queue, String name, String more) throws Exception {
        putDestination(queue, name, receiver, "/hook", more);
    }

    /** As {@link #putHookDestination}, to {@code server}'s {@code path}. */
    private static void putDestination(String queue, String name, HttpServer server, String path, String more) throws Exception {
        RuntimeApiServer.Outcome put = runtime.invoke(ApiGatewayEvents.request("PUT", "/api/v1/queues/" + queue + "/destinations/" + name)
                .header("authorization", "Bearer " + Api.TEST_API_KEY)
                .json("{\"url\":\"http://127.0.0.1:" + server.getAddress().getPort() + path + "\",\"signingSecret\":\""
                        + SIGNING_SECRET + "\"" + more + "}").build(), TIMEOUT);
        assertNotNull(put.response(), "the PUT failed: " + put.error() + "\n" + function.output());
        assertEquals(201, JSON.readTree(put.response()).path("statusCode").asInt(), put.response());
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

    private static void execute(String sql) {
        try (Connection c = DriverManager.getConnection(TestDatabase.jdbcUrl(database), "postgres", "");
             Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
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
