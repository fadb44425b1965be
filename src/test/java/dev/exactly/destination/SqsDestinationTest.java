package dev.exactly.destination;

import static dev.exactly.destination.DestinationFixtures.await;
import static dev.exactly.destination.DestinationFixtures.create;
import static dev.exactly.destination.DestinationFixtures.deleteAll;
import static dev.exactly.destination.DestinationFixtures.destinations;
import static dev.exactly.destination.DestinationFixtures.fresh;
import static dev.exactly.destination.DestinationFixtures.push;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.MotoServer;
import dev.exactly.webhook.Signing;
import dev.exactly.webhook.WebhookClient;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * sqs destinations against a real SQS-compatible server on loopback: moto's server (moto_server,
 * the AWS service mock of the Python library moto), started in its own process on 127.0.0.2 (which
 * the test profile allows) and spoken to by the AWS SDK v2 on both sides: Exactly's SqsClient sends,
 * the test's own receives. Covered: a standard and a FIFO queue (each message arrives once, its
 * attributes, the FIFO message group and deduplication ids, offset order per group), a webhook body
 * that is not JSON (base64, marked), and a message over SQS's size limit (dead-lettered at once).
 * Where moto_server is not installed the class is skipped, saying how to run it.
 */
@QuarkusTest
class SqsDestinationTest {

    static MotoServer server;
    static String endpoint;
    static SqsClient sqs;

    @Inject
    Pool pool;

    @BeforeAll
    static void startServer() throws Exception {
        try {
            server = MotoServer.start("127.0.0.2");
        } catch (IOException e) {
            org.junit.jupiter.api.Assumptions.abort(MotoServer.ABSENT + " (" + e.getMessage() + ")");
        }
        endpoint = server.endpoint();
        // Exactly's SDK client finds these through the default credentials provider chain
        System.setProperty("aws.accessKeyId", "AKIDEXACTLYTEST");
        System.setProperty("aws.secretAccessKey", "exactly-test-secret-key");
        sqs = server.sqs(Region.US_EAST_1);
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (sqs != null) {
            sqs.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @AfterEach
    void deleteDestinations() {
        deleteAll(pool);
    }


    private static String createQueue(String name, boolean fifo) {
        return MotoServer.createQueue(sqs, name, fifo);
    }

    private static void putSqs(String queue, String name, String queueUrl, String extra) {
        create(queue, name, "{\"type\":\"sqs\",\"queueUrl\":\"" + queueUrl + "\",\"region\":\"us-east-1\",\"endpoint\":\"" + endpoint
                + "\",\"backoffMs\":5,\"backoffCapMs\":20" + extra + "}");
    }



    private static List<Message> receive(String queueUrl, int n) {
        return MotoServer.receive(sqs, queueUrl, n);
    }

    private static String attr(Message m, String name) {
        return MotoServer.attr(m, name);
    }

    private static void checkPlace(Message m, String queue, Map<String, String> ids, Map<String, String> payloads) {
        String txn = attr(m, "transactionId");
        assertEquals(ids.get(txn), attr(m, "messageId"), "the original messageId");
        assertEquals(queue, attr(m, "queue"));
        assertEquals("Number", m.messageAttributes().get("offset").dataType());
        assertEquals("Number", m.messageAttributes().get("attempt").dataType());
        assertEquals("1", attr(m, "attempt"));
        assertEquals("json", attr(m, "payloadEncoding"));
        assertNull(attr(m, "contentType"), "a pushed payload has no media type of its own");
        assertEquals(payloads.get(txn), m.body(), "the stored payload, unchanged");
    }

    @Test
    void aStandardQueueGetsEachMessageOnceWithItsAttributes() throws Exception {
        String queue = fresh("sqs-std");
        String url = createQueue(queue, false);
        putSqs(queue, "std-" + queue, url, "");
        int n = 15;
        Map<String, String> ids = new HashMap<>();
        Map<String, String> payloads = new HashMap<>();
        for (int i = 0; i < n; i++) {
            String txn = "tx-" + i;
            String payload = "{\"n\": " + i + ",  \"s\": \"é ✓\", \"big\": 12345678901234567890.5}";
            payloads.put(txn, payload);
            ids.put(txn, push(queue, "p" + (i % 3), txn, payload));
        }
        List<Message> got = receive(url, n);
        assertEquals(n, got.size(), "each message once");
        Set<String> seen = new HashSet<>();
        for (Message m : got) {
            checkPlace(m, queue, ids, payloads);
            assertTrue(seen.add(attr(m, "messageId")), "once per messageId");
            assertNull(m.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID), "no message group on a standard queue");
        }
        await("figures", Duration.ofSeconds(30), () -> destinations(queue).getLong("destinations[0].state.delivered") == n);
        assertEquals(0, destinations(queue).getLong("destinations[0].state.failedAttempts"));
        assertEquals(url, destinations(queue).getString("destinations[0].queueUrl"));
    }

    @Test
    void aFifoQueueGetsAGroupPerPartitionTheMessageIdAsDeduplicationIdAndOffsetOrder() throws Exception {
        String queue = fresh("sqs-fifo");
        String url = createQueue(queue, true);
        putSqs(queue, "fifo-" + queue, url, "");
        String longPartition = "tenant-" + "x".repeat(200); // queue/partition passes 128 characters: hashed
        List<String> partitions = List.of("a", "b", longPartition);
        int n = 18;
        Map<String, String> ids = new HashMap<>();
        Map<String, String> payloads = new HashMap<>();
        for (int i = 0; i < n; i++) {
            String txn = "f-" + i;
            String payload = "{\"i\":" + i + "}";
            payloads.put(txn, payload);
            ids.put(txn, push(queue, partitions.get(i % 3), txn, payload));
        }
        List<Message> got = receive(url, n);
        assertEquals(n, got.size(), "each message once");
        Map<String, Long> lastOffset = new HashMap<>();
        for (Message m : got) {
            checkPlace(m, queue, ids, payloads);
            String partition = attr(m, "partition");
            String group = m.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID);
            if (partition.equals(longPartition)) {
                assertTrue(group.matches("sha256:[0-9a-f]{64}"), group);
                assertEquals(AwsPayload.groupId(queue, partition), group);
            } else {
                assertEquals(queue + "/" + partition, group);
            }
            assertEquals(attr(m, "messageId"), m.attributes().get(MessageSystemAttributeName.MESSAGE_DEDUPLICATION_ID));
            long offset = Long.parseLong(attr(m, "offset"));
            Long before = lastOffset.put(group, offset);
            assertTrue(before == null || offset > before, "offsets increase per message group: " + before + " then " + offset);
        }
        assertEquals(3, lastOffset.size(), "one group per partition");
    }

    @Test
    void aWebhookBodyThatIsNotJsonIsSentBase64Encoded() throws Exception {
        String url = createQueue(fresh("sqs-form"), false);
        putSqs("webhooks.gh", "sqs-form", url, "");
        String delivery = UUID.randomUUID().toString();
        byte[] form = ("payload=" + java.net.URLEncoder.encode("{\"zen\":\"Design for failure.\"}", StandardCharsets.UTF_8))
                .getBytes(StandardCharsets.UTF_8);
        HttpResponse<String> r = WebhookClient.post("gh", form, "Content-Type", "application/x-www-form-urlencoded",
                "X-GitHub-Event", "ping", "X-GitHub-Delivery", delivery, "X-Hub-Signature-256", Signing.github("gh-test-secret", form));
        assertEquals(200, r.statusCode(), r.body());
        List<Message> got = receive(url, 1);
        assertEquals(1, got.size());
        Message m = got.get(0);
        assertEquals(delivery, attr(m, "transactionId"));
        assertEquals("base64", attr(m, "payloadEncoding"));
        assertEquals("application/x-www-form-urlencoded", attr(m, "contentType"));
        assertEquals(new String(form, StandardCharsets.UTF_8),
                new String(Base64.getDecoder().decode(m.body()), StandardCharsets.UTF_8), "the stored bytes");
    }

    @Test
    void aMessageOverSqsLimitIsDeadLetteredAtOnceSayingSo() throws Exception {
        String queue = fresh("sqs-big");
        String url = createQueue(queue, false);
        putSqs(queue, "big-" + queue, url, "");
        push(queue, "p", "big", "\"" + "x".repeat(SqsSender.MAX_MESSAGE_BYTES) + "\"");
        push(queue, "p", "small", "{\"after\":true}");
        List<Message> got = receive(url, 1);
        assertEquals(List.of("small"), got.stream().map(m -> attr(m, "transactionId")).toList(), "the oversize one was not sent");
        JsonPath s = destinations(queue);
        assertEquals(1, s.getLong("destinations[0].state.deadLetters"));
        assertEquals(1, s.getLong("destinations[0].state.failedAttempts"), "one attempt, not maxAttempts");
        String error = s.getString("destinations[0].state.lastError");
        assertTrue(error.contains("over SQS's limit of 1048576 bytes"), error);
    }

    /**
     * The payload (a JSON string of x's) whose SQS message, as Exactly builds it for the first
     * message of partition {@code partition} with that transaction id at attempt {@code attempt},
     * is {@code bytes} long: body and attributes as SQS counts them.
     */
    private static String payloadSized(String queue, String partition, String txn, int attempt, long bytes) {
        Map<String, MessageAttributeValue> attributes = new LinkedHashMap<>();
        for (String[] a : new String[][] {{"messageId", "String", UUID.randomUUID().toString()}, {"queue", "String", queue},
                {"partition", "String", partition}, {"offset", "Number", "0"}, {"transactionId", "String", txn},
                {"attempt", "Number", Integer.toString(attempt)}, {"payloadEncoding", "String", "json"}}) {
            attributes.put(a[0], MessageAttributeValue.builder().dataType(a[1]).stringValue(a[2]).build());
        }
        long around = SqsSender.size("\"\"", attributes);
        return "\"" + "x".repeat((int) (bytes - around)) + "\"";
    }

    /**
     * The size limit's verdict does not hang on the attempt's number: against an endpoint that
     * answers 500, a message of exactly SQS's limit at attempt 1 but over it with a wider attempt
     * number is dead-lettered at its first attempt, never sent; one that fits with the widest
     * attempt number is sent by every attempt up to maxAttempts, and dead-lettered with the 500.
     */
    @Test
    void theSizeLimitIsCountedWithTheWidestAttemptNumberSoItsVerdictComesAtTheFirstAttempt() throws Exception {
        AtomicInteger requests = new AtomicInteger();
        com.sun.net.httpserver.HttpServer failing = DestinationFixtures.startReceiver(2, ex -> {
            ex.getRequestBody().readAllBytes();
            requests.incrementAndGet();
            byte[] answer = "{\"__type\":\"com.amazonaws.sqs#InternalError\",\"message\":\"try again\"}"
                    .getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("Content-Type", "application/x-amz-json-1.0");
            ex.sendResponseHeaders(500, answer.length);
            ex.getResponseBody().write(answer);
            ex.close();
        });
        try {
            String queue = fresh("sqs-edge");
            String name = "edge-" + queue;
            String url = createQueue(queue, false);
            create(queue, name, "{\"type\":\"sqs\",\"queueUrl\":\"" + url + "\",\"region\":\"us-east-1\",\"endpoint\":\""
                    + DestinationFixtures.receiverUrl(failing, "") + "\",\"maxAttempts\":12,\"backoffMs\":5,\"backoffCapMs\":10}");
            // exactly the limit with attempt "1"; one byte over with "10", two with "100"
            String big = push(queue, "p", "big", payloadSized(queue, "p", "big", 1, SqsSender.MAX_MESSAGE_BYTES));
            await("dead-lettered", () -> destinations(queue).getLong("destinations[0].state.deadLetters") == 1);
            JsonPath s = destinations(queue);
            assertEquals(1, s.getLong("destinations[0].state.failedAttempts"), "one attempt, the first: " + s.prettify());
            assertEquals(0, requests.get(), "never sent");
            String error = s.getString("destinations[0].state.lastError");
            assertTrue(error.contains("would be 1048578 bytes") && error.contains("over SQS's limit of 1048576 bytes"), error);
            var row = pool.preparedQuery("SELECT message_id::text, attempts FROM exactly.destination_dead_letters WHERE destination = $1")
                    .executeAndAwait(io.vertx.mutiny.sqlclient.Tuple.of(name)).iterator().next();
            assertEquals(big, row.getString(0));
            assertEquals(1, row.getInteger(1));

            // exactly the limit with attempt "100": legal at every attempt, sent by all twelve
            push(queue, "q", "fit", payloadSized(queue, "q", "fit", 100, SqsSender.MAX_MESSAGE_BYTES));
            await("dead-lettered after its attempts",
                    () -> destinations(queue).getLong("destinations[0].state.deadLetters") == 2);
            assertEquals(12, requests.get(), "maxAttempts attempts, each sent");
            JsonPath after = destinations(queue);
            assertEquals(13, after.getLong("destinations[0].state.failedAttempts"));
            assertTrue(after.getString("destinations[0].state.lastError").contains("SQS answered HTTP 500"),
                    after.getString("destinations[0].state.lastError"));
        } finally {
            DestinationFixtures.stopReceiver(failing);
        }
    }
}
