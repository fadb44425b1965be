package dev.exactly.destination;

import static dev.exactly.destination.DestinationFixtures.await;
import static dev.exactly.destination.DestinationFixtures.create;
import static dev.exactly.destination.DestinationFixtures.deleteAll;
import static dev.exactly.destination.DestinationFixtures.destinations;
import static dev.exactly.destination.DestinationFixtures.fresh;
import static dev.exactly.destination.DestinationFixtures.push;
import static dev.exactly.testing.Api.api;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.exactly.testing.FakeEventBridge;
import dev.exactly.testing.FakeEventBridge.Fault;
import dev.exactly.testing.FakeEventBridge.Received;
import dev.exactly.webhook.Signing;
import dev.exactly.webhook.WebhookClient;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * eventbridge destinations, driving the real AWS SDK v2 EventBridgeClient against
 * {@link FakeEventBridge} on 127.0.0.2 (which the test profile allows), a loopback stand-in that
 * answers PutEvents as the EventBridge API reference documents it, successes, failed entries and
 * 500s. What the client sent is checked: target, SigV4 signature scope, the entry's bus, Source,
 * DetailType and Detail. EventBridge itself is not here.
 */
@QuarkusTest
class EventBridgeDestinationTest {

    static final ObjectMapper JSON = new ObjectMapper();

    @Inject
    Pool pool;

    FakeEventBridge server;
    List<Received> received;

    @BeforeAll
    static void credentials() {
        // the SDK's default credentials provider chain reads these system properties first
        System.setProperty("aws.accessKeyId", "AKIDEXACTLYTEST");
        System.setProperty("aws.secretAccessKey", "exactly-test-secret-key");
    }

    @BeforeEach
    void endpoint() throws Exception {
        server = new FakeEventBridge("127.0.0.2");
        received = server.received();
    }

    @AfterEach
    void stop() {
        server.close();
        deleteAll(pool);
    }

    private String endpointUrl() {
        return server.endpoint();
    }

    private List<Received> of(String queue) {
        return received.stream().filter(r -> queue.equals(r.detail().path("queue").asText())).toList();
    }

    private String body(String extra) {
        return "{\"type\":\"eventbridge\",\"eventBus\":\"orders\",\"eventSource\":\"com.example.exactly\",\"detailType\":\"order.event\","
                + "\"region\":\"eu-west-1\",\"endpoint\":\"" + endpointUrl() + "\",\"backoffMs\":5,\"backoffCapMs\":20" + extra + "}";
    }

    @Test
    void eachMessageIsOneEventWithItsPayloadAndPlace() throws Exception {
        String queue = fresh("eb");
        String name = "eb-" + queue;
        String view = api().body(body("")).put("/api/v1/queues/" + queue + "/destinations/" + name)
                .then().statusCode(201).extract().asString();
        assertTrue(view.contains("\"eventSource\":\"com.example.exactly\""), view);
        assertTrue(view.contains("\"source\":\"api\""), view);
        assertFalse(view.contains("\"url\""), view);
        int n = 12;
        Map<String, String> ids = new HashMap<>();
        Map<String, String> payloads = new HashMap<>();
        for (int i = 0; i < n; i++) {
            String txn = "tx-" + i;
            String payload = "{\"n\": " + i + ", \"big\": 12345678901234567890.5, \"s\": \"é\"}";
            payloads.put(txn, payload);
            ids.put(txn, push(queue, "p" + (i % 3), txn, payload));
        }
        await(n + " events", () -> of(queue).size() >= n);
        Thread.sleep(300); // anything extra would arrive now
        List<Received> got = of(queue);
        assertEquals(n, got.size(), "each message once");
        Map<String, Long> lastOffset = new HashMap<>();
        for (Received r : got) {
            assertEquals("POST", r.h(":method"));
            assertEquals("/", r.h(":path"));
            assertEquals("AWSEvents.PutEvents", r.h("X-Amz-Target"));
            assertTrue(r.h("Content-Type").startsWith("application/x-amz-json-1.1"), r.h("Content-Type"));
            assertTrue(r.h("Authorization").startsWith("AWS4-HMAC-SHA256 Credential=AKIDEXACTLYTEST/"), r.h("Authorization"));
            assertTrue(r.h("Authorization").contains("/eu-west-1/events/aws4_request"), r.h("Authorization"));
            assertEquals(1, r.body().get("Entries").size(), "one entry per message");
            JsonNode e = r.entry();
            assertEquals("orders", e.get("EventBusName").asText());
            assertEquals("com.example.exactly", e.get("Source").asText());
            assertEquals("order.event", e.get("DetailType").asText());
            JsonNode d = r.detail();
            String txn = d.get("transactionId").asText();
            assertEquals(ids.get(txn), d.get("messageId").asText(), "the original messageId");
            assertEquals(queue, d.get("queue").asText());
            assertEquals(1, d.get("attempt").asInt());
            assertEquals("json", d.get("payloadEncoding").asText());
            assertEquals(JSON.readTree(payloads.get(txn)), d.get("payload"), "the payload as a JSON value");
            assertTrue(e.get("Detail").asText().contains("12345678901234567890.5"), "numbers as they were pushed");
            assertNull(d.get("contentType"), "a pushed payload has no media type of its own");
            long offset = d.get("offset").asLong();
            Long before = lastOffset.put(d.get("partition").asText(), offset);
            assertTrue(before == null || offset > before, "offsets increase per partition");
        }
        await("figures", () -> destinations(queue).getLong("destinations[0].state.delivered") == n);
        assertEquals(0, destinations(queue).getLong("destinations[0].state.failedAttempts"));
    }

    @Test
    void aPartialFailureIsAFailedAttemptRetriedWithTheSameId() throws Exception {
        String queue = fresh("eb-partial");
        create(queue, "p-" + queue, body(""));
        server.fail(Fault.PARTIAL);
        server.fail(Fault.HTTP_500);
        String id = push(queue, "p", "once", "{\"x\":1}");
        push(queue, "p", "twice", "{\"x\":2}");
        await("both delivered", () -> destinations(queue).getLong("destinations[0].state.delivered") == 2);
        List<Received> got = of(queue);
        assertEquals(4, got.size(), "two failed attempts, then each message once");
        for (int i = 0; i < 3; i++) {
            assertEquals(id, got.get(i).detail().get("messageId").asText(), "the repeat carries the same id");
            assertEquals(i + 1, got.get(i).detail().get("attempt").asInt());
        }
        assertEquals("twice", got.get(3).detail().get("transactionId").asText(), "the next one waited: order kept");
        JsonPath s = destinations(queue);
        assertEquals(2, s.getLong("destinations[0].state.failedAttempts"));
        String firstError = pool.preparedQuery("SELECT last_error FROM exactly.destination_state WHERE name = $1")
                .executeAndAwait(Tuple.of("p-" + queue)).iterator().next().getString(0);
        assertTrue(firstError.contains("EventBridge answered HTTP 500 InternalException"), firstError);
    }

    @Test
    void thePartialFailuresErrorCodeIsTheLastError() throws Exception {
        String queue = fresh("eb-code");
        create(queue, "c-" + queue, body(",\"maxAttempts\":1"));
        server.fail(Fault.PARTIAL);
        String id = push(queue, "p", "dead", "{\"x\":1}");
        await("dead-lettered", () -> destinations(queue).getLong("destinations[0].state.deadLetters") == 1);
        assertEquals("EventBridge did not take the event: InternalFailure: the bus could not take it now",
                destinations(queue).getString("destinations[0].state.lastError"));
        var row = pool.preparedQuery("SELECT message_id::text, error FROM exactly.destination_dead_letters WHERE destination = $1")
                .executeAndAwait(Tuple.of("c-" + queue)).iterator().next();
        assertEquals(id, row.getString(0));
    }

    @Test
    void aBodyThatIsNotJsonTravelsBase64Encoded() throws Exception {
        String queue = "webhooks.gh";
        create(queue, "eb-form", body(""));
        String delivery = UUID.randomUUID().toString();
        byte[] form = ("payload=" + java.net.URLEncoder.encode("{\"zen\":\"Keep it logically awesome.\"}", StandardCharsets.UTF_8))
                .getBytes(StandardCharsets.UTF_8);
        HttpResponse<String> r = WebhookClient.post("gh", form, "Content-Type", "application/x-www-form-urlencoded",
                "X-GitHub-Event", "ping", "X-GitHub-Delivery", delivery, "X-Hub-Signature-256", Signing.github("gh-test-secret", form));
        assertEquals(200, r.statusCode(), r.body());
        await("the event", () -> received.stream().anyMatch(x -> delivery.equals(x.detail().path("transactionId").asText())));
        JsonNode d = received.stream().filter(x -> delivery.equals(x.detail().path("transactionId").asText())).findFirst()
                .orElseThrow().detail();
        assertEquals("base64", d.get("payloadEncoding").asText());
        assertTrue(d.get("payload").isTextual());
        assertEquals(new String(form, StandardCharsets.UTF_8),
                new String(Base64.getDecoder().decode(d.get("payload").asText()), StandardCharsets.UTF_8), "the stored bytes");
        assertEquals("application/x-www-form-urlencoded", d.get("contentType").asText());
    }

    /**
     * A JSON webhook body holding a lone surrogate escape (a webhook body is stored as sent) is not
     * I-JSON: it travels base64-encoded, as a body that is not JSON does, and the delivery after it
     * in the same partition arrives as JSON (nothing is held back).
     */
    @Test
    void aJsonBodyWithALoneSurrogateEscapeTravelsBase64AndHoldsNothingBack() throws Exception {
        String queue = "webhooks.gh";
        create(queue, "eb-lone", body(""));
        String lone = UUID.randomUUID().toString();
        String after = UUID.randomUUID().toString();
        byte[] bad = "{\"zen\":\"half a pair: \\ud800\"}".getBytes(StandardCharsets.UTF_8);
        byte[] good = "{\"zen\":\"whole\"}".getBytes(StandardCharsets.UTF_8);
        for (Object[] d : new Object[][] {{lone, bad}, {after, good}}) {
            byte[] b = (byte[]) d[1];
            HttpResponse<String> r = WebhookClient.post("gh", b, "Content-Type", "application/json", "X-GitHub-Event", "ping",
                    "X-GitHub-Delivery", (String) d[0], "X-Hub-Signature-256", Signing.github("gh-test-secret", b));
            assertEquals(200, r.statusCode(), r.body());
        }
        await("both events", () -> received.stream().anyMatch(x -> after.equals(x.detail().path("transactionId").asText())));
        JsonNode first = received.stream().filter(x -> lone.equals(x.detail().path("transactionId").asText())).findFirst()
                .orElseThrow().detail();
        assertEquals("base64", first.get("payloadEncoding").asText());
        assertEquals(new String(bad, StandardCharsets.UTF_8),
                new String(Base64.getDecoder().decode(first.get("payload").asText()), StandardCharsets.UTF_8), "the stored bytes");
        JsonNode second = received.stream().filter(x -> after.equals(x.detail().path("transactionId").asText())).findFirst()
                .orElseThrow().detail();
        assertEquals("json", second.get("payloadEncoding").asText());
        assertEquals("whole", second.get("payload").get("zen").asText());
    }

    @Test
    void anEntryOverEventBridgesLimitIsDeadLetteredAtOnceSayingSo() throws Exception {
        String queue = fresh("eb-big");
        create(queue, "big-" + queue, body(""));
        String big = "\"" + "x".repeat(EventBridgeSender.MAX_ENTRY_BYTES) + "\"";
        String id = push(queue, "p", "big", big);
        push(queue, "p", "small", "{\"after\":true}");
        await("the next one delivered", () -> destinations(queue).getLong("destinations[0].state.delivered") == 1);
        JsonPath s = destinations(queue);
        assertEquals(1, s.getLong("destinations[0].state.deadLetters"));
        assertEquals(1, s.getLong("destinations[0].state.failedAttempts"), "one attempt, not maxAttempts: no retry can help");
        String error = s.getString("destinations[0].state.lastError");
        assertTrue(error.contains("over EventBridge's limit of 262144 bytes"), error);
        assertEquals(List.of("small"), of(queue).stream().map(x -> x.detail().get("transactionId").asText()).toList(),
                "the oversize one never reached the bus");
        var row = pool.preparedQuery("SELECT message_id::text, attempts FROM exactly.destination_dead_letters WHERE destination = $1")
                .executeAndAwait(Tuple.of("big-" + queue)).iterator().next();
        assertEquals(id, row.getString(0));
        assertEquals(1, row.getInteger(1));
    }

    @Test
    void badSettingsAre400NamingTheField() {
        String queue = fresh("eb-bad");
        List<String[]> cases = new ArrayList<>();
        cases.add(new String[] {"{\"type\":\"eventbridge\",\"eventSource\":\"aws.s3\"}", "eventSource"});
        cases.add(new String[] {"{\"type\":\"eventbridge\",\"detailType\":\"\"}", "detailType"});
        cases.add(new String[] {"{\"type\":\"eventbridge\",\"eventBus\":\"no spaces\"}", "eventBus"});
        cases.add(new String[] {"{\"type\":\"eventbridge\",\"region\":\"moon-1\"}", "region"});
        cases.add(new String[] {"{\"type\":\"eventbridge\",\"url\":\"https://example.com\"}", "url"});
        cases.add(new String[] {"{\"type\":\"eventbridge\",\"queueUrl\":\"https://sqs.eu-west-1.amazonaws.com/1/q\"}", "queueUrl"});
        cases.add(new String[] {"{\"type\":\"eventbridge\",\"endpoint\":\"http://169.254.169.254\"}", "endpoint"});
        cases.add(new String[] {"{\"type\":\"eventbridge\",\"endpoint\":\"http://127.0.0.1:4010\"}", "endpoint"});
        cases.add(new String[] {"{\"type\":\"eventbridge\",\"endpoint\":\"https://events.example.com/path\"}", "endpoint"});
        cases.add(new String[] {"{\"type\":\"sqs\"}", "queueUrl"});
        cases.add(new String[] {"{\"type\":\"sqs\",\"queueUrl\":\"https://sqs.eu-west-1.amazonaws.com/1/bad name\"}", "queueUrl"});
        cases.add(new String[] {"{\"type\":\"sqs\",\"queueUrl\":\"https://key:secret@sqs.eu-west-1.amazonaws.com/1/q\"}", "queueUrl"});
        cases.add(new String[] {"{\"type\":\"sqs\",\"queueUrl\":\"http://10.0.0.5/1/q\"}", "queueUrl"});
        cases.add(new String[] {"{\"type\":\"sqs\",\"queueUrl\":\"https://sqs.eu-west-1.amazonaws.com/1/q\",\"signingSecret\":\"x\"}",
                "signingSecret"});
        cases.add(new String[] {"{\"type\":\"sqs\",\"queueUrl\":\"https://sqs.eu-west-1.amazonaws.com/1/q\",\"eventBus\":\"b\"}",
                "eventBus"});
        cases.add(new String[] {"{\"type\":\"http\",\"url\":\"https://example.com\",\"region\":\"eu-west-1\"}", "region"});
        cases.add(new String[] {"{\"type\":\"kafka\"}", "type"});
        for (String[] c : cases) {
            String answer = api().body(c[0]).put("/api/v1/queues/" + queue + "/destinations/bad")
                    .then().statusCode(400).contentType("application/problem+json").extract().asString();
            assertTrue(answer.contains("\"field\":\"" + c[1] + "\""), c[0] + " -> " + answer);
        }
        assertEquals(0, pool.preparedQuery("SELECT count(*) FROM exactly.destinations WHERE queue = $1")
                .executeAndAwait(Tuple.of(queue)).iterator().next().getLong(0), "nothing written");
    }

    @Test
    void anEndpointWhoseNameResolvesToARefusedAddressFailsEachAttemptSayingSo() throws Exception {
        String queue = fresh("eb-ssrf");
        create(queue, "ssrf-" + queue, "{\"type\":\"eventbridge\",\"region\":\"eu-west-1\",\"endpoint\":\"http://localhost:"
                + server.port() + "\",\"maxAttempts\":1}");
        push(queue, "p", "x", "{}");
        await("dead-lettered", () -> destinations(queue).getLong("destinations[0].state.deadLetters") == 1);
        String error = destinations(queue).getString("destinations[0].state.lastError");
        assertTrue(error.startsWith("endpoint: host 'localhost' resolves to"), error);
        assertTrue(error.contains("loopback"), error);
        assertTrue(of(queue).isEmpty(), "nothing reached the endpoint");
    }

    /**
     * The payload (a JSON string of x's) whose entry, as Exactly builds it for the first message of
     * partition {@code partition} with that transaction id at attempt {@code attempt} (Source
     * com.example.exactly, DetailType order.event), is {@code bytes} long as EventBridge counts it.
     */
    private static String payloadSized(String queue, String partition, String txn, int attempt, long bytes) {
        byte[] empty = "\"\"".getBytes(StandardCharsets.UTF_8);
        Sender.Outgoing m = new Sender.Outgoing(UUID.randomUUID().toString(), queue, partition, 0, txn, null, empty);
        long around = "com.example.exactly".length() + "order.event".length()
                + EventBridgeSender.detail(m, attempt, AwsPayload.json(empty)).getBytes(StandardCharsets.UTF_8).length;
        return "\"" + "x".repeat((int) (bytes - around)) + "\"";
    }

    /**
     * The size limit's verdict does not hang on the attempt's number: with the bus answering 500, an
     * entry of exactly the limit at attempt 1 but over it with a wider attempt number is
     * dead-lettered at its first attempt, never sent; one that fits with the widest attempt number
     * is sent by every attempt up to maxAttempts, and dead-lettered with the 500.
     */
    @Test
    void theSizeLimitIsCountedWithTheWidestAttemptNumberSoItsVerdictComesAtTheFirstAttempt() throws Exception {
        String queue = fresh("eb-edge");
        String name = "edge-" + queue;
        create(queue, name, body(",\"maxAttempts\":12"));
        Fault[] failures = new Fault[12];
        java.util.Arrays.fill(failures, Fault.HTTP_500);
        server.fail(failures);
        // exactly the limit with attempt 1; one byte over with 10, two with 100
        String big = push(queue, "p", "big", payloadSized(queue, "p", "big", 1, EventBridgeSender.MAX_ENTRY_BYTES));
        await("dead-lettered", () -> destinations(queue).getLong("destinations[0].state.deadLetters") == 1);
        JsonPath s = destinations(queue);
        assertEquals(1, s.getLong("destinations[0].state.failedAttempts"), "one attempt, the first: " + s.prettify());
        assertEquals(List.of(), of(queue), "never sent");
        String error = s.getString("destinations[0].state.lastError");
        assertTrue(error.contains("would be 262146 bytes") && error.contains("over EventBridge's limit of 262144 bytes"), error);
        var row = pool.preparedQuery("SELECT message_id::text, attempts FROM exactly.destination_dead_letters WHERE destination = $1")
                .executeAndAwait(Tuple.of(name)).iterator().next();
        assertEquals(big, row.getString(0));
        assertEquals(1, row.getInteger(1));

        // exactly the limit with attempt 100: legal at every attempt, sent by all twelve
        push(queue, "q", "fit", payloadSized(queue, "q", "fit", 100, EventBridgeSender.MAX_ENTRY_BYTES));
        await("dead-lettered after its attempts", () -> destinations(queue).getLong("destinations[0].state.deadLetters") == 2);
        List<Received> got = of(queue);
        assertEquals(12, got.size(), "maxAttempts attempts, each sent");
        for (int i = 0; i < 12; i++) {
            assertEquals(i + 1, got.get(i).detail().get("attempt").asInt());
        }
        assertTrue(destinations(queue).getString("destinations[0].state.lastError").contains("EventBridge answered HTTP 500"),
                destinations(queue).getString("destinations[0].state.lastError"));
    }
}
