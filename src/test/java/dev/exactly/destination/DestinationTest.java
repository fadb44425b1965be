package dev.exactly.destination;

import static dev.exactly.destination.DestinationFixtures.await;
import static dev.exactly.destination.DestinationFixtures.deleteAll;
import static dev.exactly.destination.DestinationFixtures.destinations;
import static dev.exactly.destination.DestinationFixtures.fresh;
import static dev.exactly.destination.DestinationFixtures.pause;
import static dev.exactly.destination.DestinationFixtures.popAsDestination;
import static dev.exactly.destination.DestinationFixtures.push;
import static dev.exactly.destination.DestinationFixtures.receiverUrl;
import static dev.exactly.destination.DestinationFixtures.resume;
import static dev.exactly.destination.DestinationFixtures.startReceiver;
import static dev.exactly.destination.DestinationFixtures.stopReceiver;
import static dev.exactly.testing.Api.api;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.standardwebhooks.Webhook;
import com.sun.net.httpserver.HttpServer;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Destinations against the real PostgreSQL and a receiver on loopback (127.0.0.2, the address the
 * test profile allows): what arrives is counted and each Standard Webhooks signature is verified
 * with the Standard Webhooks Java library; faults are 500s, a receiver slower than the timeout
 * (it processed the request: the repeat carries the same id), a message that always fails (dead-
 * lettered for that destination alone), and a URL whose host resolves to a refused address.
 */
@QuarkusTest
class DestinationTest {

    static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

    /** One request the receiver got. */
    record Received(Map<String, String> headers, String body, int answered) {
        String h(String name) {
            return headers.get(name.toLowerCase());
        }
    }

    @Inject
    Pool pool;

    @Inject
    Dispatcher dispatcher;

    @Inject
    DestinationRepository repository;

    HttpServer server;
    final List<Received> received = new CopyOnWriteArrayList<>();
    final AtomicInteger failNext = new AtomicInteger();
    final AtomicInteger slowNext = new AtomicInteger();
    final AtomicInteger paceMs = new AtomicInteger();
    /** Paced requests in progress at the receiver, and the most at once. */
    final AtomicInteger concurrent = new AtomicInteger();
    final AtomicInteger maxConcurrent = new AtomicInteger();
    /** transactionIds, or "transactionId@path" for one path alone, the receiver answers 500. */
    final Map<String, Boolean> alwaysFail = new ConcurrentHashMap<>();
    /** Paths the receiver always answers 500. */
    final java.util.Set<String> failPaths = ConcurrentHashMap.newKeySet();
    /** transactionId -> the attempt the receiver holds unanswered until {@link #release} counts down (or 20 s). */
    final Map<String, String> hangAt = new ConcurrentHashMap<>();
    final java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);

    @BeforeEach
    void receiver() throws Exception {
        receiverOn(0);
    }

    void receiverOn(int port) throws Exception {
        server = startReceiver(port, 8, ex -> {
            byte[] body = ex.getRequestBody().readAllBytes();
            Map<String, String> headers = new HashMap<>();
            ex.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(), v.get(0)));
            headers.put(":path", ex.getRequestURI().getPath());
            if ("/endless".equals(headers.get(":path"))) {
                endless(ex, headers);
                return;
            }
            String txn = headers.get("exactly-transaction-id");
            int status = 200;
            String decoded = txn == null ? null : URLDecoder.decode(txn, StandardCharsets.UTF_8);
            if (decoded != null && hangAt.containsKey(decoded) && hangAt.get(decoded).equals(headers.get("exactly-attempt"))) {
                received.add(new Received(headers, new String(body, StandardCharsets.UTF_8), -1));
                try {
                    release.await(20, java.util.concurrent.TimeUnit.SECONDS); // an attempt in flight
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                ex.sendResponseHeaders(500, -1);
                ex.close();
                return;
            }
            if (decoded != null && (alwaysFail.containsKey(decoded) || alwaysFail.containsKey(decoded + "@" + headers.get(":path")))
                    || failPaths.contains(headers.get(":path"))) {
                status = 500;
            } else if (failNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                status = 500;
                ex.getResponseHeaders().add("Retry-After", "0");
            } else if (slowNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                Received slow = new Received(headers, new String(body, StandardCharsets.UTF_8), -1);
                received.add(slow);
                // processed, but answered only once the destination's timeout has sent the same id again (or after 60 s)
                long end = System.nanoTime() + 60_000_000_000L;
                while (System.nanoTime() < end && received.stream()
                        .noneMatch(r -> r != slow && java.util.Objects.equals(r.h("webhook-id"), slow.h("webhook-id")))) {
                    try {
                        Thread.sleep(20);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
                ex.sendResponseHeaders(200, -1);
                ex.close();
                return;
            }
            if (paceMs.get() > 0) {
                maxConcurrent.accumulateAndGet(concurrent.incrementAndGet(), Math::max);
                try {
                    Thread.sleep(paceMs.get()); // answered in time, but slowly
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    concurrent.decrementAndGet();
                }
            }
            received.add(new Received(headers, new String(body, StandardCharsets.UTF_8), status));
            ex.sendResponseHeaders(status, -1);
            ex.close();
        });
    }

    /** Bytes the {@code /endless} path wrote before its client closed the connection; -1 until it did. */
    final java.util.concurrent.atomic.AtomicLong endlessCut = new java.util.concurrent.atomic.AtomicLong(-1);

    /**
     * Answers 200 with a chunked body of 16 MiB paced over about 10 s (64 KiB every 40 ms), far
     * longer than the tests' timeoutMs, and records in {@link #endlessCut} how much it had written
     * when the client closed the connection.
     */
    private void endless(com.sun.net.httpserver.HttpExchange ex, Map<String, String> headers) throws java.io.IOException {
        received.add(new Received(headers, "", 200));
        ex.sendResponseHeaders(200, 0);
        byte[] chunk = new byte[64 * 1024];
        long written = 0;
        try (java.io.OutputStream out = ex.getResponseBody()) {
            for (int i = 0; i < 256; i++) {
                out.write(chunk);
                out.flush();
                written += chunk.length;
                Thread.sleep(40);
            }
        } catch (java.io.IOException closed) {
            endlessCut.set(written);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            ex.close();
        }
    }

    @AfterEach
    void stop() {
        release.countDown();
        stopReceiver(server);
        // no destination of these tests keeps delivering (or retrying) while other test classes run
        deleteAll(pool);
    }

    private String url() {
        return receiverUrl(server, "/hook?x=1");
    }


    /**
     * Creates the queue's destination {@code prefix-queue} sending to the receiver, expecting 201.
     *
     * @param settings JSON members after the url, each preceded by a comma ("" for none)
     * @return its name
     */
    private String destination(String queue, String prefix, String settings) {
        String name = prefix + "-" + queue;
        put(queue, name, "{\"url\":\"" + url() + "\"" + settings + "}", 201);
        return name;
    }

    private static void put(String queue, String name, String body, int status) {
        api().body(body).put("/api/v1/queues/" + queue + "/destinations/" + name).then().statusCode(status);
    }




    /**
     * A push request's items: {@code n} new messages of {@code queue}, transactionIds {@code prefix0} …,
     * spread over partitions {@code p0} … {@code p<partitions - 1>} in turn, each with payload {@code {}}.
     */
    private static String items(String queue, String prefix, int n, int partitions) {
        StringBuilder items = new StringBuilder();
        for (int i = 0; i < n; i++) {
            items.append(i == 0 ? "" : ",").append("{\"queue\":\"").append(queue).append("\",\"partition\":\"p").append(i % partitions)
                    .append("\",\"transactionId\":\"").append(prefix).append(i).append("\",\"payload\":{}}");
        }
        return items.toString();
    }

    private List<Received> of(String queue) {
        return received.stream().filter(r -> queue.equals(r.h("Exactly-Queue"))).toList();
    }

    @Test
    void everyMessageArrivesOnceSignedInOffsetOrderPerPartition() throws Exception {
        String queue = fresh("dest-signed");
        push(queue, "p0", "before", "{\"n\":-1}"); // stored before the destination: not delivered
        put(queue, "signed-" + queue, "{\"url\":\"" + url() + "\",\"signingSecret\":\"" + SECRET + "\"}", 201);
        int n = 40;
        Map<String, String> payloads = new HashMap<>();
        for (int i = 0; i < n; i++) {
            String txn = "tx " + i + " é/ü";
            String payload = "{\"n\": " + i + ",  \"spaced\" : true}";
            payloads.put(txn, payload);
            push(queue, "p" + (i % 4), txn, payload);
        }
        push(queue, "p3", "tx 3 é/ü", "{\"n\": 3,  \"spaced\" : true}"); // a duplicate: not stored, not delivered
        await(n + " deliveries", () -> of(queue).size() >= n);
        Thread.sleep(300); // anything extra would arrive now
        List<Received> got = of(queue);
        assertEquals(n, got.size(), () -> "each message exactly once, none from before the destination: " + got.stream()
                .map(r -> r.h("Exactly-Partition") + "/" + r.h("Exactly-Offset") + " " + r.h("webhook-id")).toList());
        Webhook verifier = new Webhook(SECRET);
        Map<String, Long> lastOffset = new HashMap<>();
        Map<String, Boolean> ids = new HashMap<>();
        for (Received r : got) {
            Map<String, List<String>> h = new HashMap<>();
            r.headers().forEach((k, v) -> h.put(k, List.of(v)));
            h.remove(":path");
            verifier.verify(r.body(), h); // throws when the signature does not match
            String txn = URLDecoder.decode(r.h("Exactly-Transaction-Id"), StandardCharsets.UTF_8);
            assertEquals(payloads.get(txn), r.body(), "the stored payload bytes, unchanged");
            assertEquals("application/json", r.h("Content-Type"));
            assertEquals("1", r.h("Exactly-Attempt"));
            assertTrue(r.h("Exactly-Transaction-Id").matches("[A-Za-z0-9._~%-]+"), "percent-encoded: " + r.h("Exactly-Transaction-Id"));
            assertTrue(ids.put(r.h("webhook-id"), true) == null, "one delivery per message id");
            long offset = Long.parseLong(r.h("Exactly-Offset"));
            Long before = lastOffset.put(r.h("Exactly-Partition"), offset);
            assertTrue(before == null || offset > before, "offsets increase per partition");
            assertTrue(r.headers().keySet().stream().noneMatch(k -> k.equals("authorization")), "no credential of Exactly's");
        }
        JsonPath state = destinations(queue);
        assertEquals("signed-" + queue, state.getString("destinations[0].name"));
        assertEquals(true, state.getBoolean("destinations[0].signed"));
        assertFalse(state.prettify().contains("whsec_"), "no secret in the answer");
        await("figures", () -> destinations(queue).getLong("destinations[0].state.delivered") == n);
        assertEquals(0, destinations(queue).getLong("destinations[0].state.pending"));
        assertEquals(0, destinations(queue).getLong("destinations[0].state.failedAttempts"));
        // the same figures in the queue's stats, beside the destination's consumer group
        JsonPath stats = api().get("/api/v1/queues/" + queue + "/stats").then().statusCode(200).extract().jsonPath();
        assertEquals("signed-" + queue, stats.getString("destinations[0].name"));
        assertEquals(n, stats.getLong("destinations[0].delivered"));
        assertEquals(0, stats.getLong("destinations[0].pending"));
        assertTrue(stats.getList("consumerGroups.group").contains("destination:signed-" + queue));
        String metrics = io.restassured.RestAssured.given().get("/q/metrics").then().statusCode(200).extract().asString();
        assertTrue(metrics.contains("exactly_destination_delivered_total{destination=\"signed-" + queue + "\"} 40.0"),
                "the Micrometer counter");
    }

    @Test
    void failuresAreRetriedInOrderWithTheSameIdThenDelivered() throws Exception {
        String queue = fresh("dest-retry");
        put(queue, "retry-" + queue, "{\"url\":\"" + url() + "\",\"backoffMs\":10,\"backoffCapMs\":50}", 201);
        failNext.set(3);
        for (int i = 0; i < 5; i++) {
            push(queue, "p", "r" + i, "{\"i\":" + i + "}");
        }
        await("five delivered", () -> of(queue).stream().filter(r -> r.answered() == 200).count() >= 5);
        List<Received> got = of(queue);
        List<Received> ok = got.stream().filter(r -> r.answered() == 200).toList();
        assertEquals(5, ok.size());
        for (int i = 0; i < 5; i++) {
            assertEquals("r" + i, ok.get(i).h("Exactly-Transaction-Id"), "offset order kept through the retries");
        }
        List<Received> failed = got.stream().filter(r -> r.answered() == 500).toList();
        assertEquals(3, failed.size());
        String firstId = ok.get(0).h("webhook-id");
        for (int i = 0; i < 3; i++) {
            assertEquals(firstId, failed.get(i).h("webhook-id"), "a repeat carries the same id");
            assertEquals(Integer.toString(i + 1), failed.get(i).h("Exactly-Attempt"));
        }
        assertEquals("4", ok.get(0).h("Exactly-Attempt"));
        await("figures", () -> destinations(queue).getLong("destinations[0].state.delivered") == 5);
        JsonPath s = destinations(queue);
        assertEquals(3, s.getLong("destinations[0].state.failedAttempts"));
        assertEquals("answered HTTP 500", s.getString("destinations[0].state.lastError"));
    }

    /**
     * A message waiting for its retry holds back its own partition alone: messages stored in other
     * partitions after its worker began the wait are delivered within a timer round or two, not after
     * the retry (each backoff here at least 15 s).
     */
    @Test
    void aRetryWaitingInOnePartitionHoldsBackNoOtherPartition() throws Exception {
        String queue = fresh("dest-hol");
        put(queue, "hol-" + queue, "{\"url\":\"" + url() + "\",\"backoffMs\":30000,\"backoffCapMs\":30000,\"maxAttempts\":3}", 201);
        alwaysFail.put("poison", true);
        push(queue, "p0", "poison", "{\"x\":0}");
        await("the first attempt failed", () -> of(queue).stream().anyMatch(r -> r.answered() == 500));
        long start = System.nanoTime();
        for (int p = 1; p <= 3; p++) {
            push(queue, "p" + p, "ok" + p, "{\"x\":" + p + "}");
        }
        await("the other partitions delivered", () -> of(queue).stream().filter(r -> r.answered() == 200).count() >= 3);
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertTrue(ms < 10_000, "the other partitions waited " + ms + " ms for p0's retry");
        assertEquals(1, of(queue).stream().filter(r -> r.answered() == 500).count(), "p0 is still waiting for its retry");
    }

    /**
     * A receiver that processes a message but answers after the destination's timeout gets it again,
     * with the same id, as attempt 2. The slow answer is held until the repeat arrived, so it is
     * late however loaded the host; the timeout (5 s) leaves a prompt answer time to arrive.
     */
    @Test
    void aReceiverSlowerThanTheTimeoutGetsTheSameIdAgain() throws Exception {
        String queue = fresh("dest-slow");
        put(queue, "slow-" + queue, "{\"url\":\"" + url() + "\",\"timeoutMs\":5000,\"backoffMs\":10}", 201);
        slowNext.set(1);
        push(queue, "p", "slow-1", "{\"slow\":true}");
        await("the repeat", () -> of(queue).stream().anyMatch(r -> r.answered() == 200));
        List<Received> got = of(queue);
        assertEquals(2, got.size(), got.toString());
        assertEquals(got.get(0).h("webhook-id"), got.get(1).h("webhook-id"));
        assertEquals("2", got.get(1).h("Exactly-Attempt"));
        await("figures", () -> destinations(queue).getLong("destinations[0].state.delivered") == 1);
        assertEquals("no answer within 5000 ms (timeoutMs)", destinations(queue).getString("destinations[0].state.lastError"));
    }

    /**
     * A receiver's answer is its status: a 200 whose body goes on far past timeoutMs delivers the
     * message once, and Exactly closes the connection after a bounded part of the body instead of
     * reading (and holding) it whole. (Read whole, this attempt timed out and was sent again.)
     */
    @Test
    void aTwoHundredWithAnEndlessBodyDeliversOnceAndTheBodyIsCutOff() throws Exception {
        String queue = fresh("dest-endless");
        String url = receiverUrl(server, "/endless");
        put(queue, "endless-" + queue, "{\"url\":\"" + url + "\",\"timeoutMs\":3000,\"backoffMs\":10}", 201);
        push(queue, "p", "endless-1", "{\"n\":1}");
        await("delivered", () -> destinations(queue).getLong("destinations[0].state.delivered") == 1);
        await("the body cut off by Exactly", () -> endlessCut.get() >= 0);
        assertTrue(endlessCut.get() < 16L * 1024 * 1024, "written before the cut: " + endlessCut.get());
        assertEquals(1, of(queue).size(), of(queue).toString());
        assertEquals(0, destinations(queue).getLong("destinations[0].state.failedAttempts"));
    }

    /**
     * A destination deleted while its worker is in the middle of a batch gets nothing more than
     * the message then in flight, and leaves no consumer-group row behind: the worker stops at its
     * next step, and what a pop under way wrote back is removed once it has stopped.
     */
    @Test
    void aDeletedDestinationGetsNothingMoreAndLeavesNoCursor() throws Exception {
        String queue = fresh("dest-del");
        String name = destination(queue, "del", ",\"timeoutMs\":5000");
        paceMs.set(150);
        try {
            for (int i = 0; i < 20; i++) {
                push(queue, "p", "m-" + i, "{\"n\":" + i + "}");
            }
            await("the first deliveries", () -> of(queue).size() >= 2);
            api().delete("/api/v1/queues/" + queue + "/destinations/" + name).then().statusCode(204);
            int atDelete = of(queue).size();
            Thread.sleep(2_000); // twenty polls of the dispatcher, and ten paced answers
            assertTrue(of(queue).size() <= atDelete + 1, "delivered after the delete: " + (of(queue).size() - atDelete));
            long cursors = pool.preparedQuery("SELECT count(*) FROM exactly.consumer_cursors WHERE consumer_group = $1")
                    .execute(Tuple.of("destination:" + name)).await().indefinitely().iterator().next().getLong(0);
            assertEquals(0, cursors, "consumer-group rows left by the deleted destination");
        } finally {
            paceMs.set(0);
        }
    }

    @Test
    void aMessageThatAlwaysFailsIsDeadLetteredForThatDestinationAlone() throws Exception {
        String queue = fresh("dest-dead");
        put(queue, "dead-" + queue, "{\"url\":\"" + url() + "\",\"maxAttempts\":2,\"backoffMs\":10}", 201);
        alwaysFail.put("poison", true);
        push(queue, "p", "poison", "{\"bad\":true}");
        push(queue, "p", "fine", "{\"bad\":false}");
        await("the next message", () -> of(queue).stream().anyMatch(r -> r.answered() == 200));
        List<Received> got = of(queue);
        assertEquals(3, got.size(), "two attempts, then the next message");
        assertEquals("fine", got.get(2).h("Exactly-Transaction-Id"));
        await("figures", () -> destinations(queue).getLong("destinations[0].state.deadLetters") == 1);
        long rows = pool.preparedQuery("SELECT count(*) FROM exactly.destination_dead_letters WHERE destination = $1 AND attempts = 2")
                .execute(Tuple.of("dead-" + queue)).await().indefinitely().iterator().next().getLong(0);
        assertEquals(1, rows);
        // the queue's own consumers still get it: the dead letter is the destination's alone
        var popped = api().body("{\"queue\":\"" + queue + "\",\"batch\":10}").post("/api/v1/pop").then().statusCode(200)
                .extract().jsonPath().getList("messages.transactionId");
        assertEquals(List.of("poison", "fine"), popped);
    }

    @Test
    void aHostThatResolvesToARefusedAddressIsNeverReached() throws Exception {
        String queue = fresh("dest-ssrf");
        // localhost resolves to 127.0.0.1: loopback, and only 127.0.0.2 is allowed
        put(queue, "ssrf-" + queue, "{\"url\":\"http://localhost:" + server.getAddress().getPort()
                + "/\",\"maxAttempts\":1}", 201);
        push(queue, "p", "s1", "{}");
        await("dead-lettered", () -> destinations(queue).getLong("destinations[0].state.deadLetters") == 1);
        String error = destinations(queue).getString("destinations[0].state.lastError");
        assertTrue(error.contains("loopback") && error.contains("localhost"), error);
        assertTrue(of(queue).isEmpty());
        // a literal refused address is refused at once
        for (String url : List.of("http://169.254.169.254/latest/meta-data", "http://[fd00:ec2::254]/", "http://10.0.0.1/",
                "http://[::ffff:127.0.0.1]:8080/", "http://127.0.0.1/", "http://0.0.0.0/", "http://100.64.0.1/")) {
            String answer = api().body("{\"url\":\"" + url + "\"}").put("/api/v1/queues/" + queue + "/destinations/lit")
                    .then().statusCode(400).extract().asString();
            assertTrue(answer.contains("\"url\"") && answer.contains("allowed-hosts"), answer);
        }
    }

    @Test
    void theApiRefusesBadSettingsNamingTheFieldAndKeepsConfiguredOnes() throws Exception {
        String queue = fresh("dest-api");
        Map<String, String> bad = Map.of(
                "{\"url\":\"ftp://example.com/\"}", "url",
                "{\"url\":\"not a url\"}", "url",
                "{}", "url",
                "{\"url\":\"https://example.com/\",\"signingSecret\":\"plain\"}", "signingSecret",
                "{\"url\":\"https://example.com/\",\"timeoutMs\":0}", "timeoutMs",
                "{\"url\":\"https://example.com/\",\"maxAttempts\":101}", "maxAttempts",
                "{\"url\":\"https://example.com/\",\"backoffMs\":100,\"backoffCapMs\":10}", "backoffCapMs",
                "{\"url\":\"https://example.com/\",\"type\":\"smtp\"}", "type",
                "{\"url\":\"https://example.com/\",\"unknown\":1}", "unknown");
        bad.forEach((body, field) -> {
            String answer = api().body(body).put("/api/v1/queues/" + queue + "/destinations/d1")
                    .then().statusCode(400).contentType("application/problem+json").extract().asString();
            assertTrue(answer.contains("\"" + field + "\""), body + " -> " + answer);
        });
        // IPv4 forms other than four decimal octets, which clients read differently (0177 is 127 to curl, 177 to Java)
        for (String host : List.of("0177.0.0.1", "127.1", "0x7f.0.0.1", "2130706433", "010.0.0.1")) {
            String answer = api().body("{\"url\":\"http://" + host + ":9/\"}").put("/api/v1/queues/" + queue + "/destinations/d1")
                    .then().statusCode(400).contentType("application/problem+json").extract().asString();
            assertTrue(answer.contains("four decimal numbers without leading zeros"), host + " -> " + answer);
        }
        api().get("/api/v1/queues/" + queue + "/destinations").then().statusCode(404); // nothing was written
        api().body("{\"url\":\"https://example.com/\"}").put("/api/v1/queues/dest-configured/destinations/configured-hook")
                .then().statusCode(409);
        api().delete("/api/v1/queues/dest-configured/destinations/configured-hook").then().statusCode(409);
        JsonPath configured = destinations("dest-configured");
        assertEquals("configuration", configured.getString("destinations[0].source"));
        put(queue, "d1", "{\"url\":\"https://example.com/a\",\"signingSecret\":\"" + SECRET + "\"}", 201);
        put(queue, "d1", "{\"url\":\"https://example.com/b\"}", 200);
        api().body("{\"url\":\"https://example.com/\"}").put("/api/v1/queues/other-" + queue + "/destinations/d1")
                .then().statusCode(409);
        JsonPath listed = destinations(queue);
        assertEquals("https://example.com/b", listed.getString("destinations[0].url"));
        assertEquals(false, listed.getBoolean("destinations[0].signed"));
        assertNotNull(listed.get("destinations[0].state"));
        await("d1's meters exported", () -> metrics().contains("destination=\"d1\""));
        api().delete("/api/v1/queues/" + queue + "/destinations/d1").then().statusCode(204);
        assertFalse(metrics().contains("destination=\"d1\""), "a deleted destination's meters are no longer exported");
        api().delete("/api/v1/queues/" + queue + "/destinations/d1").then().statusCode(404);
        api().get("/api/v1/queues/" + queue + "/destinations").then().statusCode(404);
        io.restassured.RestAssured.given().get("/api/v1/queues/" + queue + "/destinations").then().statusCode(401);
    }

    @Test
    void aRedriveSendsADeadLetterAgainToThatDestinationAloneWithItsId() throws Exception {
        String queue = fresh("dest-redrive");
        String base = receiverUrl(server, "");
        put(queue, "a-" + queue, "{\"url\":\"" + base + "/a\",\"maxAttempts\":1}", 201);
        put(queue, "b-" + queue, "{\"url\":\"" + base + "/b\"}", 201);
        alwaysFail.put("poison-r@/a", true); // b is answered at once: it sees each message once
        push(queue, "p", "poison-r", "{\"bad\":true}");
        push(queue, "p", "fine-r", "{\"bad\":false}");
        await("b got both", () -> of(queue).stream().filter(r -> r.h(":path").equals("/b")).count() == 2);
        await("a dead-lettered one", () -> destinations(queue).getLong("destinations[0].state.deadLetters") == 1);
        await("a delivered the next", () -> destinations(queue).getLong("destinations[0].state.delivered") == 1);
        String firstId = of(queue).stream().filter(r -> r.h(":path").equals("/a") && r.answered() == 500).findFirst()
                .orElseThrow().h("webhook-id");
        alwaysFail.remove("poison-r@/a");
        JsonPath redriven = api().body("{}").post("/api/v1/queues/" + queue + "/destinations/a-" + queue + "/redrive")
                .then().statusCode(200).extract().jsonPath();
        assertEquals(List.of(firstId), redriven.getList("redriven"));
        assertEquals(0, redriven.getInt("remaining"));
        await("the redriven message", () -> of(queue).stream().anyMatch(r -> r.h(":path").equals("/a") && r.answered() == 200
                && firstId.equals(r.h("webhook-id"))));
        await("no dead letter left", () -> destinations(queue).getLong("destinations[0].state.deadLetters") == 0);
        assertEquals(2, destinations(queue).getLong("destinations[0].state.delivered"));
        assertEquals(2, of(queue).stream().filter(r -> r.h(":path").equals("/b")).count(), "the other destination saw nothing again");
        assertEquals(0, api().body("{}").post("/api/v1/queues/" + queue + "/destinations/a-" + queue + "/redrive")
                .then().statusCode(200).extract().jsonPath().getList("redriven").size());
        api().body("{}").post("/api/v1/queues/" + queue + "/destinations/nope/redrive").then().statusCode(404);
        api().body("{\"limit\":0}").post("/api/v1/queues/" + queue + "/destinations/a-" + queue + "/redrive").then().statusCode(400);
    }

    @Test
    void aPausedDestinationGetsNothingUntilResumed() throws Exception {
        String queue = fresh("dest-pause");
        String name = destination(queue, "pause", "");
        pause(queue, name);
        assertTrue(destinations(queue).getBoolean("destinations[0].state.paused"));
        for (int i = 0; i < 3; i++) {
            push(queue, "p", "w" + i, "{}");
        }
        Thread.sleep(1_000); // ten delivery timer rounds (exactly.delivery.poll-ms=100 in tests) and the pushes' wake-ups
        assertTrue(of(queue).isEmpty(), "nothing is sent while paused");
        assertEquals(3, destinations(queue).getLong("destinations[0].state.pending"));
        resume(queue, name);
        await("three after the resume", () -> of(queue).size() == 3);
        assertFalse(destinations(queue).getBoolean("destinations[0].state.paused"));
        api().post("/api/v1/queues/" + queue + "/destinations/nope/pause").then().statusCode(404);
    }

    /**
     * A backlog over more partitions than a pop looks at (16) drains in parallel: each pop that saw
     * another partition due starts another worker, up to exactly.delivery.workers (8). The receiver
     * answers each request after 300 ms, so one worker alone would hold one request at a time.
     */
    @Test
    void aBacklogOverManyPartitionsIsDeliveredByParallelWorkers() throws Exception {
        String queue = fresh("dest-fan");
        String name = destination(queue, "fan", "");
        pause(queue, name);
        for (int i = 0; i < 20; i++) {
            push(queue, "p" + i, "f" + i, "{}");
        }
        paceMs.set(300);
        resume(queue, name);
        await("the backlog delivered", () -> of(queue).size() == 20);
        assertTrue(maxConcurrent.get() >= 4, "requests at once: " + maxConcurrent.get());
    }

    @Test
    void aReceiverThatWasDownCatchesUpInOrder() throws Exception {
        String queue = fresh("dest-down");
        int port = server.getAddress().getPort();
        put(queue, "down-" + queue, "{\"url\":\"" + url() + "\",\"backoffMs\":200,\"backoffCapMs\":400,\"maxAttempts\":100}", 201);
        stopReceiver(server); // connection refused from now on
        for (int i = 0; i < 4; i++) {
            push(queue, "p", "d" + i, "{\"i\":" + i + "}");
        }
        await("failed attempts", () -> destinations(queue).getLong("destinations[0].state.failedAttempts") >= 3);
        assertEquals(4, destinations(queue).getLong("destinations[0].state.pending"));
        receiverOn(port);
        await("caught up", () -> of(queue).size() == 4);
        assertEquals(List.of("d0", "d1", "d2", "d3"), of(queue).stream().map(r -> r.h("Exactly-Transaction-Id")).toList());
        await("nothing pending", () -> destinations(queue).getLong("destinations[0].state.pending") == 0);
    }

    @Test
    void messagesLeasedByAnInstanceThatDiedAreDeliveredAgainWithTheirIds() throws Exception {
        String queue = fresh("dest-crash");
        String name = "crash-" + queue;
        push(queue, "p", "before", "{}");
        put(queue, name, "{\"url\":\"" + url() + "\"}", 201);
        pause(queue, name);
        push(queue, "p", "c0", "{\"c\":0}");
        push(queue, "p", "c1", "{\"c\":1}");
        // an instance takes the partition under the destination's group and dies before acking (as kill -9 would)
        List<String> leased = popAsDestination(queue, name, 1).getList("messages.messageId");
        assertEquals(2, leased.size());
        resume(queue, name);
        await("delivered after the lease expired", () -> of(queue).size() == 2);
        assertEquals(leased, of(queue).stream().map(r -> r.h("webhook-id")).toList(), "the same ids, in offset order");
        // no attempt of this destination was recorded for them: whatever the dead instance sent, its
        // outcome is unknown, and the message's first recorded attempt is the one made now
        assertEquals(List.of("1", "1"), of(queue).stream().map(r -> r.h("Exactly-Attempt")).toList());
    }

    /**
     * Once a pause is answered, this instance sends nothing more to the destination: a message
     * pushed right after the 204 waits for the resume (the pause reaches this instance's workers
     * before the answer, not at its next timer round).
     */
    @Test
    void aPauseAnsweredHoldsBackWhatIsPushedRightAfterIt() throws Exception {
        String queue = fresh("dest-hold");
        String name = destination(queue, "hold", "");
        push(queue, "p", "first", "{}");
        await("the first message delivered", () -> of(queue).size() == 1);
        for (int i = 0; i < 10; i++) {
            pause(queue, name);
            push(queue, "p", "held-" + i, "{}");
            Thread.sleep(100);
            assertEquals(i + 1, of(queue).size(), "nothing is sent while paused: " + of(queue));
            resume(queue, name);
            int expected = i + 2;
            await("delivered after the resume", () -> of(queue).size() == expected);
        }
    }

    /**
     * A batch leased again (here: its lease ended while the destination was paused, as after a
     * crash) goes on counting attempts where the previous lease stopped: Exactly-Attempt and
     * maxAttempts continue instead of restarting at the number of times the message was leased.
     */
    @Test
    void attemptsGoOnCountingAcrossLeases() throws Exception {
        String queue = fresh("dest-count");
        String name = destination(queue, "count", ",\"backoffMs\":10,\"backoffCapMs\":20,\"maxAttempts\":8");
        alwaysFail.put("again", true);
        push(queue, "p", "again", "{}");
        await("three failed attempts", () -> of(queue).size() >= 3);
        pause(queue, name);
        Thread.sleep(500); // five timer rounds: the worker stops at its next attempt
        int made = of(queue).size();
        // the lease ends as if its instance had died, instead of after its 30 s
        pool.preparedQuery("UPDATE exactly.consumer_cursors SET lease_expires_at = now() - interval '1 second' "
                + "WHERE consumer_group = $1").execute(Tuple.of("destination:" + name)).await().indefinitely();
        alwaysFail.remove("again");
        resume(queue, name);
        await("delivered", () -> of(queue).stream().anyMatch(r -> r.answered() == 200));
        List<Received> got = of(queue);
        assertEquals(made + 1, got.size(), got.toString());
        for (int i = 0; i < got.size(); i++) {
            assertEquals(Integer.toString(i + 1), got.get(i).h("Exactly-Attempt"), "one count across both leases: " + got);
        }
        await("the recorded attempts go with the ack", () -> pool.preparedQuery(
                        "SELECT count(*) FROM exactly.destination_attempts WHERE destination = $1")
                .execute(Tuple.of(name)).await().indefinitely().iterator().next().getLong(0) == 0);
        assertEquals(made, destinations(queue).getLong("destinations[0].state.failedAttempts"));
    }

    /** Messages of the queue's dead-letter queue (0 when it was never made). */
    private long inQueueDlq(String queue) {
        return pool.preparedQuery("SELECT count(*) FROM exactly.messages m JOIN exactly.partitions p ON p.id = m.partition_id "
                        + "JOIN exactly.queues q ON q.id = p.queue_id WHERE q.name = $1")
                .execute(Tuple.of(queue + ".dlq")).await().indefinitely().iterator().next().getLong(0);
    }

    /** Whether the destination's group holds an unexpired lease on a partition of its queue. */
    private boolean leaseHeld(String name) {
        return pool.preparedQuery("SELECT count(*) FROM exactly.consumer_cursors WHERE consumer_group = $1 "
                        + "AND lease_id IS NOT NULL AND lease_expires_at > now()")
                .execute(Tuple.of("destination:" + name)).await().indefinitely().iterator().next().getLong(0) > 0;
    }

    /**
     * A pause in the middle of a retry, then the lease's expiry (as after a restart), on a queue
     * whose own retryLimit is 0: the expired lease is not charged against the queue's retry limit,
     * so nothing goes to the queue's dead-letter queue; after the resume the failed message is sent
     * again as attempt 2, and the messages its lease held but never sent arrive once each, in order,
     * as attempt 1.
     */
    @Test
    void aPauseInTheMiddleOfARetryMovesNothingToTheQueueDeadLetters() throws Exception {
        String queue = fresh("dest-midretry");
        String name = "midretry-" + queue;
        api().body(Map.of("queue", queue, "options", Map.of("retryLimit", 0))).post("/api/v1/configure").then().statusCode(200);
        put(queue, name, "{\"url\":\"" + url() + "\",\"backoffMs\":5000,\"backoffCapMs\":5000}", 201);
        alwaysFail.put("m0", true);
        for (int i = 0; i < 3; i++) {
            push(queue, "p", "m" + i, "{\"m\":" + i + "}");
        }
        await("attempt 1", () -> of(queue).size() == 1);
        pause(queue, name);
        alwaysFail.remove("m0");
        Thread.sleep(500);
        // the lease ends as if its instance had been restarted (a no-op once the pause released it)
        pool.preparedQuery("UPDATE exactly.consumer_cursors SET lease_expires_at = now() - interval '1 second' "
                + "WHERE consumer_group = $1 AND lease_id IS NOT NULL").execute(Tuple.of("destination:" + name)).await().indefinitely();
        Thread.sleep(6_000);
        resume(queue, name);
        await("three delivered", () -> of(queue).stream().filter(r -> r.answered() == 200).count() >= 3);
        Thread.sleep(300); // anything extra would arrive now
        List<Received> got = of(queue);
        assertEquals(List.of("m0", "m0", "m1", "m2"), got.stream().map(r -> r.h("Exactly-Transaction-Id")).toList(), got.toString());
        assertEquals(List.of("1", "2", "1", "1"), got.stream().map(r -> r.h("Exactly-Attempt")).toList());
        assertEquals(0, inQueueDlq(queue), "nothing in the queue's dead-letter queue");
        await("nothing pending", () -> destinations(queue).getLong("destinations[0].state.pending") == 0);
        assertEquals(3, destinations(queue).getLong("destinations[0].state.delivered"));
        assertEquals(0, destinations(queue).getLong("destinations[0].state.deadLetters"));
    }

    /**
     * A pause ends a retry's backoff at once and releases the worker's lease: the resume delivers
     * right away, not after the backoff (20 s) nor after the lease (30 s).
     */
    @Test
    void aPauseEndsARetryWaitAndReleasesTheLease() throws Exception {
        String queue = fresh("dest-pausewait");
        String name = destination(queue, "pausewait", ",\"backoffMs\":20000,\"backoffCapMs\":20000");
        alwaysFail.put("w0", true);
        push(queue, "p", "w0", "{}");
        push(queue, "p", "w1", "{}");
        await("attempt 1", () -> of(queue).size() == 1);
        assertTrue(leaseHeld(name), "the worker holds its lease through the backoff");
        pause(queue, name);
        alwaysFail.remove("w0");
        await("the lease released once the pause stopped the worker", Duration.ofSeconds(5), () -> !leaseHeld(name));
        resume(queue, name);
        long resumed = System.nanoTime();
        await("both delivered", () -> of(queue).stream().filter(r -> r.answered() == 200).count() == 2);
        assertTrue(System.nanoTime() - resumed < 10_000_000_000L, "delivered before the backoff or the lease would have ended");
        assertEquals(List.of("1", "2", "1"), of(queue).stream().map(r -> r.h("Exactly-Attempt")).toList());
    }

    /**
     * A PUT that replaces a destination reaches a message already being retried: its next attempt
     * goes to the new URL (here, one that answers), so it is delivered, not dead-lettered.
     */
    @Test
    void aReplacingPutReachesARetryInProgress() throws Exception {
        String queue = fresh("dest-reput");
        String name = "reput-" + queue;
        String base = receiverUrl(server, "");
        // the backoff after attempt 1 is 1 to 2 s, after attempt 2 2 to 4 s: room for the PUT and this
        // instance's reading of it even on a loaded machine (on Citus the PUT commits on every node)
        String settings = ",\"maxAttempts\":10,\"backoffMs\":2000,\"backoffCapMs\":4000}";
        failPaths.add("/a");
        put(queue, name, "{\"url\":\"" + base + "/a\"" + settings, 201);
        push(queue, "p", "r0", "{}");
        await("attempt 2", () -> of(queue).size() == 2);
        put(queue, name, "{\"url\":\"" + base + "/b\"" + settings, 200); // during the 2 to 4 s backoff
        await("delivered or dead-lettered", () -> of(queue).stream().anyMatch(r -> r.answered() == 200)
                || destinations(queue).getLong("destinations[0].state.deadLetters") > 0);
        List<Received> got = of(queue);
        assertEquals(List.of("/a", "/a", "/b"), got.stream().map(r -> r.h(":path")).toList());
        assertEquals(List.of("1", "2", "3"), got.stream().map(r -> r.h("Exactly-Attempt")).toList());
        await("figures", () -> destinations(queue).getLong("destinations[0].state.delivered") == 1);
        assertEquals(0, destinations(queue).getLong("destinations[0].state.deadLetters"));
    }

    /**
     * A retry's number is recorded before it is sent: while attempt 2 is in flight the database
     * already counts 2, so an instance killed then would not repeat it. A message whose recorded
     * attempts reach maxAttempts (its last attempt cut off) is dead-lettered for the destination
     * without another attempt.
     */
    @Test
    void aRetryIsRecordedBeforeItIsSentAndNoAttemptPassesMaxAttempts() throws Exception {
        String queue = fresh("dest-ahead");
        String name = destination(queue, "ahead", ",\"backoffMs\":10,\"backoffCapMs\":10,\"timeoutMs\":30000");
        alwaysFail.put("a0", true);
        hangAt.put("a0", "2");
        push(queue, "p", "a0", "{}");
        await("attempt 2 in flight", () -> of(queue).size() == 2);
        assertEquals(2, pool.preparedQuery("SELECT attempts FROM exactly.destination_attempts WHERE destination = $1")
                .execute(Tuple.of(name)).await().indefinitely().iterator().next().getInteger(0), "attempt 2 recorded before its answer");
        alwaysFail.remove("a0");
        release.countDown();
        await("delivered", () -> of(queue).stream().anyMatch(r -> r.answered() == 200));
        assertEquals(List.of("1", "2", "3"), of(queue).stream().map(r -> r.h("Exactly-Attempt")).toList());

        // the last attempt of a message (maxAttempts 2) was cut off: recorded, never answered
        String queue2 = fresh("dest-cutoff");
        String name2 = "cutoff-" + queue2;
        put(queue2, name2, "{\"url\":\"" + url() + "\",\"maxAttempts\":2}", 201);
        pause(queue2, name2);
        push(queue2, "p", "cut", "{}");
        push(queue2, "p", "next", "{}");
        // the instance that made attempt 2 held them under a lease (1 s) and died
        popAsDestination(queue2, name2, 1);
        pool.preparedQuery("INSERT INTO exactly.destination_attempts (destination, partition_id, \"offset\", attempts) "
                        + "SELECT $1, p.id, 0, 2 FROM exactly.partitions p JOIN exactly.queues q ON q.id = p.queue_id "
                        + "WHERE q.name = $2 AND p.name = 'p'")
                .execute(Tuple.of(name2, queue2)).await().indefinitely();
        Thread.sleep(1_200);
        resume(queue2, name2);
        await("the next message", () -> of(queue2).size() == 1);
        assertEquals("next", of(queue2).get(0).h("Exactly-Transaction-Id"), "no third attempt at the cut-off message");
        await("dead-lettered", () -> destinations(queue2).getLong("destinations[0].state.deadLetters") == 1);
        assertEquals(2, pool.preparedQuery("SELECT attempts FROM exactly.destination_dead_letters WHERE destination = $1")
                .execute(Tuple.of(name2)).await().indefinitely().iterator().next().getInteger(0));
    }

    /**
     * The graceful stop (the application's shutdown observer) releases the lease of a batch whose
     * attempt it cut off, once the batch wrote what it settled: the destination's group can lease
     * the partition again at once, and gets the message in flight and the one after it, not after
     * the lease (93 s for a 30 s timeout) runs out. Delivery is started again afterwards, as the
     * next start-up would.
     */
    @Test
    void theGracefulStopReleasesTheLeaseOfABatchInFlight() throws Exception {
        String queue = fresh("dest-stop");
        String name = destination(queue, "stop", ",\"timeoutMs\":30000");
        hangAt.put("s0", "1");
        push(queue, "p", "s0", "{}");
        push(queue, "p", "s1", "{}");
        await("attempt 1 in flight", () -> of(queue).size() == 1);
        assertTrue(leaseHeld(name), "the worker holds its lease while attempt 1 is in flight");
        List<String> popped;
        try {
            dispatcher.onStop(null); // returns once the workers ended, or after 5 s
            await("the lease released by the stop (it runs 93 s)", Duration.ofSeconds(20), () -> !leaseHeld(name));
            assertEquals(List.of("s0"), of(queue).stream().map(r -> r.h("Exactly-Transaction-Id")).toList(),
                    "nothing was sent after the stop");
            popped = popAsDestination(queue, name, 1).getList("messages.transactionId");
        } finally {
            dispatcher.onStart(null);
        }
        assertEquals(List.of("s0", "s1"), popped, "both leased again at once, in offset order");
    }

    /**
     * From the stop signal (SIGTERM: the HTTP server then waits for its requests under way before
     * delivery stops) no send begins: the attempt under way runs to its answer and is acked, the
     * next message of its batch and a message stored after the signal are not sent, and the batch's
     * lease is released at once, so that the restart sends them, and only them, once each.
     */
    @Test
    void noSendBeginsAfterTheStopSignal() throws Exception {
        String queue = fresh("dest-signal");
        String name = destination(queue, "signal", ",\"timeoutMs\":30000");
        paceMs.set(1_500); // g0 is answered 200 after 1.5 s
        push(queue, "p", "g0", "{}");
        push(queue, "p", "g1", "{}");
        await("g0 in flight", () -> concurrent.get() == 1);
        try {
            dispatcher.onStopSignal(null);
            paceMs.set(0);
            push(queue, "q", "g2", "{}"); // stored after the signal (here, not refused by a stop gate)
            await("g0 answered", () -> of(queue).size() >= 1);
            await("the lease released once g0 was acked", Duration.ofSeconds(5), () -> !leaseHeld(name));
            Thread.sleep(1_000); // timer rounds: a send after the signal would arrive now
            assertEquals(List.of("g0"), of(queue).stream().map(r -> r.h("Exactly-Transaction-Id")).toList(),
                    "only the attempt under way at the signal was made");
            dispatcher.onStop(null);
        } finally {
            dispatcher.onStart(null);
        }
        await("g1 and g2 delivered after the restart", () -> of(queue).size() >= 3);
        Thread.sleep(300); // a repeat would arrive now
        assertEquals(List.of("g0", "g1", "g2"), of(queue).stream().map(r -> r.h("Exactly-Transaction-Id")).sorted().toList(),
                "each once: g0, answered after the signal, is not sent again");
    }

    /**
     * The stop waits for the attempts under way ({@code exactly.delivery.stop-wait-ms}, 10 s from
     * the signal, here from the stop itself): an unordered batch's four messages, in flight at the
     * stop and answered 2xx 1.5 s later, count and are acked before the stop returns, and the
     * restart sends none of them again.
     */
    @Test
    void theStopWaitsForTheAttemptsUnderWay() throws Exception {
        String queue = fresh("dest-stopwait");
        String name = destination(queue, "stopwait", ",\"ordered\":false,\"timeoutMs\":30000");
        String items = items(queue, "w", 4, 1);
        paceMs.set(1_500);
        try {
            api().body("{\"items\":[" + items + "]}").post("/api/v1/push").then().statusCode(200);
            await("the four attempts in flight", () -> concurrent.get() == 4);
            dispatcher.onStop(null);
            assertEquals(4, of(queue).size(), "the four attempts under way were answered before the stop returned");
            assertFalse(leaseHeld(name), "the batch's lease ended");
            await("the four answers counted as delivered", Duration.ofSeconds(5),
                    () -> destinations(queue).getLong("destinations[0].state.delivered") == 4);
        } finally {
            paceMs.set(0);
            dispatcher.onStart(null);
        }
        Thread.sleep(1_500); // a repeat would arrive now
        assertEquals(List.of("w0", "w1", "w2", "w3"), of(queue).stream().map(r -> r.h("Exactly-Transaction-Id")).sorted().toList(),
                "each once: none was sent again after the restart");
    }

    /**
     * The stop that comes while a worker's pop is in the database: the pop, answered after the
     * workers were cut off, leased a partition for each worker it could still start (three here),
     * and the stop ends all three leases, not only the one whose batch the worker began; nothing
     * is sent. The pop is held at its cursor lock by a transaction that locks the cursors' table.
     */
    @Test
    void aPopAnsweredAfterTheStopLeavesNoLease() throws Exception {
        String queue = fresh("dest-stoppop");
        String name = destination(queue, "stoppop", ",\"ordered\":false");
        String items = items(queue, "sp", 6, 3);
        io.vertx.mutiny.sqlclient.SqlConnection blocker = pool.getConnection().await().indefinitely();
        Thread stopper = new Thread(() -> dispatcher.onStop(null), "test-stop");
        boolean locked = true;
        try {
            blocker.query("BEGIN").execute().await().indefinitely();
            blocker.query("LOCK TABLE exactly.consumer_cursors IN EXCLUSIVE MODE").execute().await().indefinitely();
            // one request, so that the pop it wakes sees its three partitions
            api().body("{\"items\":[" + items + "]}").post("/api/v1/push").then().statusCode(200);
            await("a pop waiting for the cursors' lock", () -> pool.query("SELECT count(*) FROM pg_stat_activity "
                    + "WHERE wait_event_type = 'Lock' AND query LIKE '%pop_many%'").execute().await().indefinitely()
                    .iterator().next().getLong(0) > 0);
            stopper.start();
            Thread.sleep(500); // the workers are cut off and the pools shut; the pop still waits
            blocker.query("ROLLBACK").execute().await().indefinitely();
            locked = false;
            stopper.join(20_000);
            assertFalse(stopper.isAlive(), "the stop ended");
            long leased = pool.preparedQuery("SELECT count(*) FROM exactly.consumer_cursors WHERE consumer_group = $1 "
                    + "AND leased_at IS NOT NULL").execute(Tuple.of("destination:" + name)).await().indefinitely()
                    .iterator().next().getLong(0);
            assertEquals(3, leased, "the pop went on after the stop and leased the three partitions");
            assertFalse(leaseHeld(name), "no lease left after the stop");
            assertEquals(List.of(), of(queue), "nothing was sent after the stop");
        } finally {
            if (locked) {
                blocker.query("ROLLBACK").execute().await().indefinitely(); // an assertion failed before the rollback
            }
            blocker.close().await().indefinitely();
            stopper.join(20_000);
            dispatcher.onStart(null);
        }
    }

    /**
     * The stop that cuts off a backoff keeps the batch's lease until that backoff ends, so that the
     * restart (or another instance) sends the next attempt no sooner than the stopped instance
     * would have: for an ordered destination's message, and for an unordered batch (the shortest of
     * its messages' backoffs). Here each backoff is 15 to 30 s (backoffMs 30000, half of it jitter).
     */
    @Test
    void theStopKeepsABackoffItCutOff() throws Exception {
        String ordered = fresh("dest-stopwait");
        String unordered = fresh("dest-stopwait-u");
        String settings = ",\"backoffMs\":30000,\"backoffCapMs\":30000";
        String one = destination(ordered, "stopwait", settings);
        String two = destination(unordered, "stopwait", settings + ",\"ordered\":false");
        alwaysFail.put("w0", true);
        alwaysFail.put("w1", true);
        alwaysFail.put("w2", true);
        push(ordered, "p", "w0", "{}");
        api().body("{\"items\":[{\"queue\":\"" + unordered + "\",\"partition\":\"p\",\"transactionId\":\"w1\",\"payload\":{}},"
                + "{\"queue\":\"" + unordered + "\",\"partition\":\"p\",\"transactionId\":\"w2\",\"payload\":{}}]}")
                .post("/api/v1/push").then().statusCode(200);
        await("attempt 1 of each failed and counted", () -> destinations(ordered).getLong("destinations[0].state.failedAttempts") == 1
                && destinations(unordered).getLong("destinations[0].state.failedAttempts") == 2);
        Thread.sleep(500); // their backoffs begin
        try {
            dispatcher.onStop(null);
            for (String name : List.of(one, two)) {
                double left = pool.preparedQuery("SELECT extract(epoch FROM lease_expires_at - now()) FROM exactly.consumer_cursors "
                        + "WHERE consumer_group = $1 AND lease_id IS NOT NULL").execute(Tuple.of("destination:" + name))
                        .await().indefinitely().iterator().next().getDouble(0);
                assertTrue(left > 10 && left <= 31, name + ": the lease lasts until the backoff ends, " + left + " s left");
            }
            assertEquals(1, of(ordered).size(), "no attempt after the stop");
            assertEquals(2, of(unordered).size(), "no attempt after the stop");
        } finally {
            dispatcher.onStart(null);
        }
    }

    /** A PUT that replaces a destination answers its state as stored, as the GET right after does. */
    @Test
    void aReplacingPutAnswersTheDestinationsState() throws Exception {
        String queue = fresh("dest-replace");
        String name = destination(queue, "replace", "");
        pause(queue, name);
        push(queue, "p", "r0", "{}");
        push(queue, "p", "r1", "{}");
        JsonPath answer = api().body("{\"url\":\"" + url() + "\",\"maxAttempts\":3}")
                .put("/api/v1/queues/" + queue + "/destinations/" + name).then().statusCode(200).extract().jsonPath();
        assertEquals(3, answer.getInt("maxAttempts"));
        assertTrue(answer.getBoolean("state.paused"), answer.prettify());
        assertEquals(2, answer.getLong("state.pending"), answer.prettify());
        JsonPath listed = destinations(queue);
        assertEquals(listed.getBoolean("destinations[0].state.paused"), answer.getBoolean("state.paused"));
        assertEquals(listed.getLong("destinations[0].state.pending"), answer.getLong("state.pending"));
    }

    /**
     * GET of one destination answers it as the PUT did and as the list of the queue's destinations
     * shows it, defined through the API or configured, never with its signing secret; 404
     * problem+json for a name the queue has no destination of (another queue's destination of that
     * name, a configured one of another queue, a deleted one); 401 without the API key.
     */
    @Test
    void oneDestinationIsReadBackAsTheListShowsIt() {
        String queue = fresh("dest-get");
        String name = "g1-" + queue;
        String path = "/api/v1/queues/" + queue + "/destinations/";
        JsonPath put = api().body("{\"url\":\"https://example.com/g\",\"signingSecret\":\"" + SECRET + "\",\"maxAttempts\":4}")
                .put(path + name).then().statusCode(201).extract().jsonPath();
        String body = api().get(path + name).then().statusCode(200).contentType("application/json").extract().asString();
        assertFalse(body.contains(SECRET.substring(6)), "the secret in " + body);
        assertFalse(body.contains("signingSecret"), "a secret field in " + body);
        JsonPath one = JsonPath.from(body);
        assertEquals(name, one.getString("name"));
        assertEquals(queue, one.getString("queue"));
        assertEquals("https://example.com/g", one.getString("url"));
        assertTrue(one.getBoolean("signed"));
        assertEquals(4, one.getInt("maxAttempts"));
        assertEquals("api", one.getString("source"));
        assertEquals(withoutAge(put.getMap("$")), withoutAge(one.getMap("$")));
        assertEquals(withoutAge(destinations(queue).getMap("destinations[0]")), withoutAge(one.getMap("$")));

        JsonPath configured = api().get("/api/v1/queues/dest-configured/destinations/configured-hook")
                .then().statusCode(200).extract().jsonPath();
        assertEquals("configuration", configured.getString("source"));
        assertEquals("http://127.0.0.2:9/never", configured.getString("url"));
        assertEquals(withoutAge(destinations("dest-configured").getMap("destinations.find { it.name == 'configured-hook' }")),
                withoutAge(configured.getMap("$")));

        for (String other : List.of(path + "nope-" + queue, "/api/v1/queues/other-" + queue + "/destinations/" + name,
                path + "configured-hook")) {
            String answer = api().get(other).then().statusCode(404).contentType("application/problem+json").extract().asString();
            assertTrue(answer.contains("has no destination named"), other + " -> " + answer);
        }
        io.restassured.RestAssured.given().get(path + name).then().statusCode(401);
        api().delete(path + name).then().statusCode(204);
        api().get(path + name).then().statusCode(404);
    }

    /** A destination's view without its oldest undelivered message's age, which grows between two reads. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> withoutAge(Map<String, Object> view) {
        Map<String, Object> out = new HashMap<>(view);
        Map<String, Object> state = new HashMap<>((Map<String, Object>) out.get("state"));
        state.remove("oldestUndeliveredAgeSeconds");
        out.put("state", state);
        return out;
    }

    /**
     * A number beyond the Java type of a field with a range of its own is refused with that range,
     * not the type's: a destination's maxAttempts, timeoutMs, backoffMs, and a pop's batch.
     */
    @Test
    void aNumberBeyondItsTypeIsRefusedWithTheFieldsRange() {
        String queue = fresh("dest-range");
        Map<String, String> bad = Map.of(
                "maxAttempts", "must be between 1 and 100",
                "timeoutMs", "must be between 1 and 60000",
                "backoffMs", "must be between 1 and 3600000",
                "backoffCapMs", "must be between 1 and 3600000");
        bad.forEach((field, message) -> {
            String answer = api().body("{\"url\":\"https://example.com/\",\"" + field + "\":99999999999}")
                    .put("/api/v1/queues/" + queue + "/destinations/d1")
                    .then().statusCode(400).contentType("application/problem+json").extract().asString();
            assertTrue(answer.contains("\"" + field + "\"") && answer.contains(message) && !answer.contains("2147483647"),
                    field + " -> " + answer);
        });
        String pop = api().body("{\"queue\":\"" + queue + "\",\"batch\":99999999999}").post("/api/v1/pop")
                .then().statusCode(400).extract().asString();
        assertTrue(pop.contains("must be between 1 and 1000") && !pop.contains("2147483647"), pop);
    }

    /**
     * A URL whose port no client takes, a secret without its base64 padding: the PUT is refused with
     * 400 naming the field and the rule, and nothing is written.
     */
    @Test
    void aPortOutOfRangeOrAnUnpaddedSecretIsRefusedAtThePut() {
        String queue = fresh("dest-port");
        for (String url : List.of("http://127.0.0.2:99999/hook", "http://127.0.0.2:0/hook", "http://127.0.0.2:-1/")) {
            String answer = api().body("{\"url\":\"" + url + "\",\"maxAttempts\":2,\"backoffMs\":100}")
                    .put("/api/v1/queues/" + queue + "/destinations/bigport")
                    .then().statusCode(400).contentType("application/problem+json").extract().asString();
            assertTrue(answer.contains("\"url\"") && answer.contains("port from 1 to 65535"), url + " -> " + answer);
        }
        String endpoint = api().body("{\"type\":\"sqs\",\"queueUrl\":\"https://sqs.us-east-1.amazonaws.com/123456789012/q\","
                        + "\"endpoint\":\"http://127.0.0.2:70000\"}")
                .put("/api/v1/queues/" + queue + "/destinations/bigport")
                .then().statusCode(400).contentType("application/problem+json").extract().asString();
        assertTrue(endpoint.contains("\"endpoint\"") && endpoint.contains("port from 1 to 65535"), endpoint);
        String secret = api().body("{\"url\":\"https://example.com/\",\"signingSecret\":"
                        + "\"whsec_tAxzQS0vg3psOSLPV+jK/zsAZVAez9m3jQPz3SPGCw8\"}")
                .put("/api/v1/queues/" + queue + "/destinations/bigport")
                .then().statusCode(400).contentType("application/problem+json").extract().asString();
        assertTrue(secret.contains("\"signingSecret\"") && secret.contains("= padding"), secret);
        api().get("/api/v1/queues/" + queue + "/destinations").then().statusCode(404); // nothing was written
    }

    /**
     * A destination whose URL the HTTP client refuses when it builds the request (a port over 65535,
     * as an older version stored without checking it): each attempt fails with the client's reason as
     * lastError, and the message is dead-lettered after maxAttempts, so the partition's next message is
     * tried too, instead of the partition being held with no attempt counted.
     */
    @Test
    void anAttemptTheClientRefusesToBuildIsAFailedAttemptThenADeadLetter() throws Exception {
        String queue = fresh("dest-client-throws");
        String name = "bigport-" + queue;
        repository.put(new Destination(name, queue, DestinationRules.HTTP, java.net.URI.create("http://127.0.0.2:99999/hook"),
                null, 2_000, 2, 10, 100, false)).await().indefinitely();
        dispatcher.refreshSoon();
        push(queue, "p", "first", "{}");
        push(queue, "p", "second", "{}");
        await("both dead-lettered", () -> destinations(queue).getLong("destinations[0].state.deadLetters") == 2);
        JsonPath state = destinations(queue);
        String error = state.getString("destinations[0].state.lastError");
        assertTrue(error != null && error.contains("65535"), error);
        assertEquals(4, state.getLong("destinations[0].state.failedAttempts"), state.prettify());
        assertEquals(2, pool.preparedQuery("SELECT count(*) FROM exactly.destination_dead_letters WHERE destination = $1 AND attempts = 2")
                .execute(Tuple.of(name)).await().indefinitely().iterator().next().getLong(0));
    }

    private static String metrics() {
        return io.restassured.RestAssured.given().get("/q/metrics").then().statusCode(200).extract().asString();
    }

}
