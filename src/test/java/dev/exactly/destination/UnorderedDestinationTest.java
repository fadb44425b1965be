package dev.exactly.destination;

import static dev.exactly.destination.DestinationFixtures.startReceiver;
import static dev.exactly.destination.DestinationFixtures.stopReceiver;
import static dev.exactly.destination.DestinationFixtures.receiverUrl;
import static dev.exactly.destination.DestinationFixtures.await;
import static dev.exactly.destination.DestinationFixtures.create;
import static dev.exactly.destination.DestinationFixtures.deleteAll;
import static dev.exactly.destination.DestinationFixtures.destinations;
import static dev.exactly.destination.DestinationFixtures.fresh;
import static dev.exactly.destination.DestinationFixtures.pause;
import static dev.exactly.destination.DestinationFixtures.resume;
import static dev.exactly.testing.Api.api;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A destination's {@code ordered} setting, against the real PostgreSQL and a receiver on loopback
 * (127.0.0.2) that counts the requests of each partition it is answering at the same moment: an
 * ordered destination never has two of a partition in flight, an unordered one sends a leased batch
 * at once, and there a message that keeps failing holds back none of the others.
 */
@QuarkusTest
class UnorderedDestinationTest {

    /** One request the receiver answered, and how many of its partition were in flight when it arrived. */
    record Received(String partition, String txn, String attempt, int inFlight, int status) {
    }

    @Inject
    Pool pool;

    HttpServer server;
    final List<Received> received = new CopyOnWriteArrayList<>();
    final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
    final Set<String> alwaysFail = ConcurrentHashMap.newKeySet();
    /** transactionId -> how long the receiver takes to answer it (else 150 ms). */
    final Map<String, Integer> slowMs = new ConcurrentHashMap<>();
    /** transactionIds answered 500 once, then 200. */
    final Set<String> failOnce = ConcurrentHashMap.newKeySet();
    /** "transactionId#attempt" -> System.nanoTime() when the request arrived. */
    final Map<String, Long> arrivedAt = new ConcurrentHashMap<>();
    /** "transactionId#attempt" -> System.currentTimeMillis() just before it was answered. */
    final Map<String, Long> answeredAt = new ConcurrentHashMap<>();

    @BeforeEach
    void receiver() throws Exception {
        server = startReceiver(64, ex -> {
            ex.getRequestBody().readAllBytes();
            String partition = ex.getRequestHeaders().getFirst("Exactly-Partition");
            String txn = ex.getRequestHeaders().getFirst("Exactly-Transaction-Id");
            AtomicInteger now = inFlight.computeIfAbsent(ex.getRequestHeaders().getFirst("Exactly-Queue") + "/" + partition,
                    k -> new AtomicInteger());
            int at = now.incrementAndGet();
            arrivedAt.put(txn + "#" + ex.getRequestHeaders().getFirst("Exactly-Attempt"), System.nanoTime());
            try {
                Thread.sleep(slowMs.getOrDefault(txn, 150)); // answered in time, but slowly: requests that overlap are seen overlapping
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            int status = alwaysFail.contains(txn) || failOnce.remove(txn) ? 500 : 200;
            received.add(new Received(partition, txn, ex.getRequestHeaders().getFirst("Exactly-Attempt"), at, status));
            now.decrementAndGet();
            answeredAt.put(txn + "#" + ex.getRequestHeaders().getFirst("Exactly-Attempt"), System.currentTimeMillis());
            ex.sendResponseHeaders(status, -1);
            ex.close();
        });
    }

    @AfterEach
    void stop() {
        stopReceiver(server);
        deleteAll(pool);
    }

    private String url() {
        return receiverUrl(server, "/hook");
    }




    /** Creates the destination paused, pushes {@code n} messages into each partition, and resumes it: each partition is one batch. */
    private void deliver(String queue, String name, String settings, List<String> partitions, int n) {
        create(queue, name, "{\"url\":\"" + url() + "\"" + settings + "}");
        pause(queue, name);
        StringBuilder items = new StringBuilder();
        for (int i = 0; i < n; i++) {
            for (String p : partitions) {
                items.append(items.length() == 0 ? "" : ",").append("{\"queue\":\"").append(queue).append("\",\"partition\":\"")
                        .append(p).append("\",\"transactionId\":\"").append(p).append("-").append(i).append("\",\"payload\":{\"i\":")
                        .append(i).append("}}");
            }
        }
        api().body("{\"items\":[" + items + "]}").post("/api/v1/push").then().statusCode(200);
        resume(queue, name);
    }

    private List<Received> of(String partitionPrefix) {
        return received.stream().filter(r -> r.txn().startsWith(partitionPrefix)).toList();
    }

    /**
     * A destination's last error is timed when the failing attempt ended, not when its batch did: in
     * an unordered batch, a message whose only attempt (maxAttempts 1) fails records its error before
     * the receiver answers the other message, 3 s later.
     */
    @Test
    void theLastErrorIsTimedAtTheFailedAttemptNotAtTheBatchsEnd() throws Exception {
        String queue = fresh("errat");
        alwaysFail.add("e1-0");
        slowMs.put("e1-1", 3_000);
        deliver(queue, "errat-" + queue, ",\"ordered\":false,\"maxAttempts\":1", List.of("e1"), 2);
        await("both answered", () -> of("e1-").size() == 2);
        await("figures", () -> destinations(queue).getLong("destinations[0].state.delivered") == 1
                && destinations(queue).getLong("destinations[0].state.deadLetters") == 1);
        JsonPath state = destinations(queue);
        assertEquals("answered HTTP 500", state.getString("destinations[0].state.lastError"));
        long lastErrorAt = java.time.OffsetDateTime.parse(state.getString("destinations[0].state.lastErrorAt"))
                .toInstant().toEpochMilli();
        assertTrue(lastErrorAt >= answeredAt.get("e1-0#1") - 1_000, "not before the failed attempt: " + state.prettify());
        assertTrue(lastErrorAt < answeredAt.get("e1-1#1"), "before the other message was answered ("
                + answeredAt.get("e1-1#1") + "): " + state.prettify());
    }

    @Test
    void anOrderedDestinationNeverHasTwoMessagesOfAPartitionInFlight() throws Exception {
        String queue = fresh("ord");
        deliver(queue, "ord-" + queue, "", List.of("o1", "o2"), 6);
        await("twelve deliveries", () -> of("o").size() >= 12);
        assertEquals(12, of("o").size());
        assertTrue(of("o").stream().allMatch(r -> r.inFlight() == 1), "one at a time per partition: " + of("o"));
        for (String p : List.of("o1", "o2")) {
            List<String> order = of(p + "-").stream().map(Received::txn).toList();
            assertEquals(List.of(p + "-0", p + "-1", p + "-2", p + "-3", p + "-4", p + "-5"), order, "offset order");
        }
        assertEquals(true, destinations(queue).getBoolean("destinations[0].ordered"));
    }

    @Test
    void anUnorderedDestinationSendsABatchOfAPartitionAtOnce() throws Exception {
        String queue = fresh("unord");
        deliver(queue, "unord-" + queue, ",\"ordered\":false", List.of("u1"), 8);
        await("eight deliveries", () -> of("u1-").size() >= 8);
        Thread.sleep(300); // anything extra would arrive now
        List<Received> got = of("u1-");
        assertEquals(8, got.size(), "each message once: " + got);
        assertEquals(8, new HashSet<>(got.stream().map(Received::txn).toList()).size());
        int most = got.stream().mapToInt(Received::inFlight).max().orElse(0);
        assertTrue(most > 1, "sends of one partition overlap: at most " + most + " in flight");
        assertEquals(false, destinations(queue).getBoolean("destinations[0].ordered"));
        await("figures", () -> destinations(queue).getLong("destinations[0].state.delivered") == 8);
        await("acked", () -> destinations(queue).getLong("destinations[0].state.pending") == 0);
        // the same batch order is kept for the next batch: the cursor moved past all eight
        long next = pool.preparedQuery("SELECT next_offset FROM exactly.consumer_cursors WHERE consumer_group = $1")
                .execute(Tuple.of("destination:unord-" + queue)).await().indefinitely().iterator().next().getLong(0);
        assertEquals(8, next);
    }

    @Test
    void aFailingMessageOfAnUnorderedBatchHoldsBackNoneOfTheOthers() throws Exception {
        String queue = fresh("unfail");
        String name = "unfail-" + queue;
        alwaysFail.add("f1-0");
        // the second attempt waits at least 1 s (half of backoffMs, the rest random)
        deliver(queue, name, ",\"ordered\":false,\"maxAttempts\":2,\"backoffMs\":2000", List.of("f1"), 6);
        await("the dead letter", () -> destinations(queue).getLong("destinations[0].state.deadLetters") == 1);
        List<Received> got = of("f1-");
        List<Received> poison = got.stream().filter(r -> r.txn().equals("f1-0")).toList();
        assertEquals(List.of("1", "2"), poison.stream().map(Received::attempt).toList(), "two attempts, then dead-lettered");
        int second = got.indexOf(poison.get(1));
        Map<String, Integer> firstSeen = new HashMap<>();
        for (int i = 0; i < got.size(); i++) {
            firstSeen.putIfAbsent(got.get(i).txn(), i);
        }
        for (int i = 1; i < 6; i++) {
            Integer at = firstSeen.get("f1-" + i);
            assertTrue(at != null && at < second, "f1-" + i + " delivered before the failing message's retry: " + got);
        }
        assertEquals(5, got.stream().filter(r -> r.status() == 200).count(), "the others once each");
        await("figures", () -> destinations(queue).getLong("destinations[0].state.delivered") == 5);
        JsonPath s = destinations(queue);
        assertEquals(2, s.getLong("destinations[0].state.failedAttempts"));
        assertEquals(0, s.getLong("destinations[0].state.pending"));
        long rows = pool.preparedQuery("SELECT count(*) FROM exactly.destination_dead_letters WHERE destination = $1 AND attempts = 2")
                .execute(Tuple.of(name)).await().indefinitely().iterator().next().getLong(0);
        assertEquals(1, rows, "the dead letter is that message's alone");
    }

    /**
     * A pause and resume while other messages of an unordered batch are still in flight: the
     * message whose retry the pause cut off is sent again soon after the resume, once the batch's
     * other messages settled (the batch's lease is released), not when the lease would have run out.
     */
    @Test
    void aPauseAndResumeDuringABatchSendsTheCutOffRetrySoonAfterTheResume() throws Exception {
        String queue = fresh("unpause");
        String name = "unpause-" + queue;
        slowMs.put("s1-0", 5_000);
        slowMs.put("s1-1", 5_000);
        failOnce.add("s1-2");
        // the retry of s1-2 waits 1 to 2 s; the lease is 33 s (timeoutMs 10 s)
        deliver(queue, name, ",\"ordered\":false,\"maxAttempts\":5,\"timeoutMs\":10000,\"backoffMs\":2000,\"backoffCapMs\":2000",
                List.of("s1"), 3);
        await("s1-2 failed once", () -> of("s1-2").size() == 1);
        pause(queue, name); // during the retry's backoff, s1-0 and s1-1 in flight
        Thread.sleep(1_200);
        resume(queue, name); // before s1-0 and s1-1 are answered
        long resumed = System.nanoTime();
        await("attempt 2 of s1-2", () -> arrivedAt.containsKey("s1-2#2"));
        long after = (arrivedAt.get("s1-2#2") - resumed) / 1_000_000;
        assertTrue(after < 10_000, "attempt 2 came " + after + " ms after the resume (the lease is 33 s)");
        await("all three delivered", () -> destinations(queue).getLong("destinations[0].state.delivered") == 3);
    }

    @Test
    void orderedIsABooleanAndShownByGet() {
        String queue = fresh("unbad");
        for (String bad : List.of("\"yes\"", "1", "\"false\"", "{}", "[]")) {
            String answer = api().body("{\"url\":\"https://example.com/\",\"ordered\":" + bad + "}")
                    .put("/api/v1/queues/" + queue + "/destinations/d1")
                    .then().statusCode(400).contentType("application/problem+json").extract().asString();
            assertTrue(answer.contains("\"ordered\""), bad + " -> " + answer);
        }
        api().get("/api/v1/queues/" + queue + "/destinations").then().statusCode(404); // nothing was written
        api().body("{\"url\":\"https://example.com/\",\"ordered\":false}").put("/api/v1/queues/" + queue + "/destinations/d1")
                .then().statusCode(201).body("ordered", org.hamcrest.Matchers.equalTo(false));
        assertEquals(false, destinations(queue).getBoolean("destinations[0].ordered"));
        api().body("{\"url\":\"https://example.com/\",\"ordered\":null}").put("/api/v1/queues/" + queue + "/destinations/d1")
                .then().statusCode(200).body("ordered", org.hamcrest.Matchers.equalTo(true));
        assertEquals(true, destinations(queue).getBoolean("destinations[0].ordered"));
        assertEquals(true, destinations("dest-configured").getBoolean("destinations[0].ordered"), "a configured one's default");
    }

    /**
     * A maxAttempts lowered below the attempts a message already made dead-letters it at its next
     * attempt, saying so in its dead letter, and leaves the destination's lastError holding the last
     * answer it got, as that dead letter's error says.
     */
    @Test
    void aMaxAttemptsLoweredBelowTheAttemptsMadeKeepsTheLastAnswerAsTheLastError() throws Exception {
        String queue = fresh("lowered");
        String name = "low-" + queue;
        alwaysFail.add("l1-0");
        // the backoff after attempt 1 is 1 to 2 s, after attempt 2 2 to 4 s: room for the PUT and this
        // instance's reading of it even on a loaded machine (on Citus the PUT commits on every node)
        String settings = ",\"ordered\":false,\"backoffMs\":2000,\"backoffCapMs\":4000";
        deliver(queue, name, settings + ",\"maxAttempts\":10", List.of("l1"), 1);
        await("two attempts", () -> of("l1-").size() >= 2);
        // during the backoff after attempt 2
        api().body("{\"url\":\"" + url() + "\"" + settings + ",\"maxAttempts\":1}").put("/api/v1/queues/" + queue + "/destinations/" + name)
                .then().statusCode(200);
        await("dead-lettered", () -> destinations(queue).getLong("destinations[0].state.deadLetters") == 1);
        assertEquals(2, of("l1-").size(), "no third attempt");
        JsonPath state = destinations(queue);
        assertEquals("answered HTTP 500", state.getString("destinations[0].state.lastError"), state.prettify());
        assertEquals(2, state.getLong("destinations[0].state.failedAttempts"));
        String error = api().get("/api/v1/queues/" + queue + "/destinations/" + name + "/dead-letters").then().statusCode(200)
                .extract().jsonPath().getString("deadLetters[0].error");
        assertTrue(error.startsWith("no attempt left: 2 made, maxAttempts 1") && error.contains("lastError holds the last answer"), error);
    }
}
