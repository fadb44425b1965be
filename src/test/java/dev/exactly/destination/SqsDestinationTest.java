package dev.exactly.destination;

import static dev.exactly.destination.DestinationFixtures.deleteAll;
import static dev.exactly.destination.DestinationFixtures.destinations;
import static dev.exactly.destination.DestinationFixtures.fresh;
import static dev.exactly.destination.DestinationFixtures.push;
import static dev.exactly.testing.Api.api;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.exactly.webhook.Signing;
import dev.exactly.webhook.WebhookClient;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.DeleteMessageRequest;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageRequest;

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

    static Process server;
    static String endpoint;
    static SqsClient sqs;

    @Inject
    Pool pool;

    @BeforeAll
    static void startServer() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.2"))) {
            port = s.getLocalPort();
        }
        File log = File.createTempFile("moto-server", ".log");
        try {
            server = new ProcessBuilder("moto_server", "-H", "127.0.0.2", "-p", Integer.toString(port))
                    .redirectErrorStream(true).redirectOutput(log).start();
        } catch (IOException e) {
            org.junit.jupiter.api.Assumptions.abort("skipped: no moto_server on the PATH (" + e.getMessage()
                    + "); to run these tests, install moto's server mode (pip install 'moto[server]', moto 5)");
        }
        endpoint = "http://127.0.0.2:" + port;
        long end = System.nanoTime() + 60_000_000_000L;
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.2", port), 500);
                break;
            } catch (IOException e) {
                if (!server.isAlive() || System.nanoTime() > end) {
                    fail("moto_server did not start: " + java.nio.file.Files.readString(log.toPath()));
                }
                Thread.sleep(100);
            }
        }
        // Exactly's SDK client finds these through the default credentials provider chain
        System.setProperty("aws.accessKeyId", "AKIDEXACTLYTEST");
        System.setProperty("aws.secretAccessKey", "exactly-test-secret-key");
        sqs = SqsClient.builder().region(Region.US_EAST_1).endpointOverride(URI.create(endpoint))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDEXACTLYTEST", "x")))
                .httpClient(UrlConnectionHttpClient.create()).build();
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (sqs != null) {
            sqs.close();
        }
        if (server != null) {
            server.descendants().forEach(ProcessHandle::destroy);
            server.destroy();
            server.waitFor();
        }
    }

    @AfterEach
    void deleteDestinations() {
        deleteAll(pool);
    }


    private static String createQueue(String name, boolean fifo) {
        Map<QueueAttributeName, String> attributes = fifo
                ? Map.of(QueueAttributeName.FIFO_QUEUE, "true", QueueAttributeName.CONTENT_BASED_DEDUPLICATION, "false")
                : Map.of();
        return sqs.createQueue(b -> b.queueName(fifo ? name + ".fifo" : name).attributes(attributes)).queueUrl();
    }

    private static void putSqs(String queue, String name, String queueUrl, String extra) {
        api().body("{\"type\":\"sqs\",\"queueUrl\":\"" + queueUrl + "\",\"region\":\"us-east-1\",\"endpoint\":\"" + endpoint
                        + "\",\"backoffMs\":5,\"backoffCapMs\":20" + extra + "}")
                .put("/api/v1/queues/" + queue + "/destinations/" + name).then().statusCode(201);
    }



    /** Receives (and deletes) messages until {@code n} arrived, then for 1 s more: anything extra shows. */
    private static List<Message> receive(String queueUrl, int n) {
        List<Message> got = new ArrayList<>();
        long end = System.nanoTime() + 60_000_000_000L;
        long quietUntil = Long.MAX_VALUE;
        while (System.nanoTime() < Math.min(end, quietUntil)) {
            List<Message> batch = sqs.receiveMessage(ReceiveMessageRequest.builder().queueUrl(queueUrl).maxNumberOfMessages(10)
                    .waitTimeSeconds(1).messageAttributeNames("All")
                    .messageSystemAttributeNames(MessageSystemAttributeName.ALL).build()).messages();
            for (Message m : batch) {
                got.add(m);
                sqs.deleteMessage(DeleteMessageRequest.builder().queueUrl(queueUrl).receiptHandle(m.receiptHandle()).build());
            }
            if (got.size() >= n && quietUntil == Long.MAX_VALUE) {
                quietUntil = System.nanoTime() + 1_000_000_000L;
            }
        }
        if (got.size() < n) {
            fail("only " + got.size() + " of " + n + " messages within 60 s");
        }
        return got;
    }

    private static String attr(Message m, String name) {
        MessageAttributeValue v = m.messageAttributes().get(name);
        return v == null ? null : v.stringValue();
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
        long deliveredAfter = System.nanoTime() + 30_000_000_000L;
        while (destinations(queue).getLong("destinations[0].state.delivered") != n && System.nanoTime() < deliveredAfter) {
            Thread.sleep(50);
        }
        assertEquals(n, destinations(queue).getLong("destinations[0].state.delivered"));
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
}
