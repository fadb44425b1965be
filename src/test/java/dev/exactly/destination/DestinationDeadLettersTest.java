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
import static dev.exactly.destination.DestinationFixtures.push;
import static dev.exactly.destination.DestinationFixtures.resume;
import static dev.exactly.testing.Api.anonymous;
import static dev.exactly.testing.Api.api;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.exactly.consume.ConsumeFixtures;
import dev.exactly.testing.LogCapture;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.hamcrest.Matchers;
import org.jboss.logmanager.ExtLogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a user sees of a destination's dead letters, against the real PostgreSQL and a receiver on
 * loopback (127.0.0.2) that answers 500 for chosen transactionIds: the listing of a destination's
 * dead letters (paged, oldest first, its refusals and its 404), and a message's deliveries telling a
 * dead letter, a retry under way, a message being sent and a message stored before the destination
 * started apart from a delivered one, each with its attempts; and the WARN each dead-lettering logs.
 */
@QuarkusTest
class DestinationDeadLettersTest {

    @Inject
    Pool pool;

    @Inject
    Dispatcher dispatcher;

    HttpServer server;
    /** transactionIds the receiver answers 500. */
    final Set<String> failing = ConcurrentHashMap.newKeySet();
    /** transactionId -> answers the receiver gave it. */
    final Map<String, Integer> answered = new ConcurrentHashMap<>();
    /** transactionIds the receiver holds, unanswered, until {@link #letGo} counts down. */
    final Set<String> held = ConcurrentHashMap.newKeySet();
    /** transactionIds of held requests that arrived. */
    final Set<String> arrived = ConcurrentHashMap.newKeySet();
    final CountDownLatch letGo = new CountDownLatch(1);

    @BeforeEach
    void receiver() throws Exception {
        server = startReceiver(4, ex -> {
            ex.getRequestBody().readAllBytes();
            String txn = ex.getRequestHeaders().getFirst("Exactly-Transaction-Id");
            String decoded = txn == null ? "" : URLDecoder.decode(txn, StandardCharsets.UTF_8);
            if (held.contains(decoded)) {
                arrived.add(decoded);
                try {
                    letGo.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            int status = failing.contains(decoded) ? 500 : 200;
            answered.merge(decoded + ":" + status, 1, Integer::sum);
            ex.sendResponseHeaders(status, -1);
            ex.close();
        });
    }

    @AfterEach
    void stop() {
        letGo.countDown();
        stopReceiver(server);
        deleteAll(pool);
    }

    private String url() {
        return receiverUrl(server, "/hook");
    }

    private void destination(String queue, String name, String settings) {
        create(queue, name, "{\"url\":\"" + url() + "\"" + settings + "}");
    }

    /**
     * Replaces the destination's settings (the receiver's URL and {@code settings}) by a PUT, and waits a
     * second: this instance reads them at once, a round of its timer besides.
     */
    private void replaceSettings(String queue, String name, String settings) throws InterruptedException {
        api().body("{\"url\":\"" + url() + "\"" + settings + "}").put("/api/v1/queues/" + queue + "/destinations/" + name)
                .then().statusCode(200);
        Thread.sleep(1000);
    }

    /** A fresh queue, its destination, and the messages pushed to it: what {@link #arrangeFailing} arranged. */
    private record Arranged(String queue, String name, List<String> messageIds) {
    }

    /**
     * Arranges a fresh queue (named {@code prefix} and random digits) with a destination of
     * {@code settings} named {@code namePrefix} and the queue's name, the receiver answering 500 for
     * {@code txns}, and one message pushed to partition p for each of them, in order (payloads
     * {"n":1}, {"n":2}, ...).
     */
    private Arranged arrangeFailing(String prefix, String namePrefix, String settings, String... txns) {
        String queue = fresh(prefix);
        String name = namePrefix + queue;
        destination(queue, name, settings);
        failing.addAll(List.of(txns));
        List<String> ids = new java.util.ArrayList<>();
        for (int i = 0; i < txns.length; i++) {
            ids.add(push(queue, "p", txns[i], "{\"n\":" + (i + 1) + "}"));
        }
        return new Arranged(queue, name, List.copyOf(ids));
    }

    /**
     * {@link #arrangeFailing} one message {@code txn} under a destination of one attempt, waits for
     * its dead letter, then gives the destination {@code settings} for a redrive of it.
     */
    private Arranged deadLetteredForRedrive(String prefix, String namePrefix, String txn, String settings) throws Exception {
        Arranged a = arrangeFailing(prefix, namePrefix, ",\"maxAttempts\":1", txn);
        await("dead-lettered", () -> destinations(a.queue()).getLong("destinations[0].state.deadLetters") == 1);
        replaceSettings(a.queue(), a.name(), settings);
        return a;
    }

    /**
     * {@link #deadLetteredForRedrive} one message {@code txn} under a destination of 4 attempts and
     * backoffs of {@code backoffMs} (half of it jitter), asks for its redrive and waits for the
     * redrive's first attempt: the redrive is then in its first backoff.
     */
    private Arranged inRedrivesFirstBackoff(String prefix, String namePrefix, String txn, int backoffMs) throws Exception {
        Arranged a = deadLetteredForRedrive(prefix, namePrefix, txn,
                ",\"maxAttempts\":4,\"backoffMs\":" + backoffMs + ",\"backoffCapMs\":" + backoffMs);
        api().body("{\"limit\":100}").post("/api/v1/queues/" + a.queue() + "/destinations/" + a.name() + "/redrive")
                .then().statusCode(200);
        await("the redrive's first attempt", Duration.ofSeconds(10), () -> answered.getOrDefault(txn + ":500", 0) == 2);
        return a;
    }

    private static JsonPath deadLetters(String queue, String name, String query) {
        return api().get("/api/v1/queues/" + queue + "/destinations/" + name + "/dead-letters" + query)
                .then().statusCode(200).extract().jsonPath();
    }

    /** The message's delivery for the destination's consumer group, from GET /api/v1/messages/{id}/deliveries. */
    private static Map<String, Object> deliveryFor(String messageId, String name) {
        List<Map<String, Object>> all = api().get("/api/v1/messages/" + messageId + "/deliveries").then().statusCode(200)
                .extract().jsonPath().getList("deliveries");
        return all.stream().filter(d -> ("destination:" + name).equals(d.get("consumerGroup"))).findFirst()
                .orElseThrow(() -> new AssertionError("no delivery for " + name + " in " + all));
    }

    @Test
    void aDestinationsDeadLettersAreListedOldestFirstAPageAtATimeAndRedrivenByTheirIds() throws Exception {
        Arranged a = arrangeFailing("dlq-list", "dl-", ",\"maxAttempts\":2,\"backoffMs\":10,\"backoffCapMs\":20", "poison-1", "poison-2");
        String queue = a.queue();
        String name = a.name();
        String first = a.messageIds().get(0);
        String second = a.messageIds().get(1);
        push(queue, "p", "fine", "{\"n\":3}");
        await("both dead-lettered and the next delivered", () -> answered.containsKey("fine:200")
                && destinations(queue).getLong("destinations[0].state.deadLetters") == 2);

        JsonPath all = deadLetters(queue, name, "");
        assertEquals(queue, all.getString("queue"));
        assertEquals(name, all.getString("destination"));
        assertEquals(List.of(first, second), all.getList("deadLetters.messageId"));
        assertEquals(List.of("poison-1", "poison-2"), all.getList("deadLetters.transactionId"));
        assertEquals(List.of("p", "p"), all.getList("deadLetters.partition"));
        assertEquals(List.of(0, 1), all.getList("deadLetters.offset"));
        assertEquals(List.of(2, 2), all.getList("deadLetters.attempts"));
        assertTrue(all.getString("deadLetters[0].error").contains("500"), all.prettify());
        assertNotNull(all.getString("deadLetters[0].deadLetteredAt"));
        assertNull(all.get("deadLetters[0].redriveRequestedAt"));
        assertNull(all.get("next"), "one page holds both");

        JsonPath page1 = deadLetters(queue, name, "?limit=1");
        assertEquals(List.of(first), page1.getList("deadLetters.messageId"));
        String next = page1.getString("next");
        assertNotNull(next);
        JsonPath page2 = deadLetters(queue, name, "?limit=1&after=" + next);
        assertEquals(List.of(second), page2.getList("deadLetters.messageId"));
        assertNull(page2.get("next"), "the last page has no next");

        // the listed id is what a redrive by messageIds takes
        failing.remove("poison-2");
        api().body("{\"messageIds\":[\"" + second + "\"]}").post("/api/v1/queues/" + queue + "/destinations/" + name + "/redrive")
                .then().statusCode(200).body("redriven", Matchers.contains(second)).body("remaining", Matchers.equalTo(1));
        await("the redriven one delivered", () -> deadLetters(queue, name, "").getList("deadLetters").size() == 1);
        assertEquals(List.of(first), deadLetters(queue, name, "").getList("deadLetters.messageId"));
    }

    /**
     * A redrive of several dead letters sends them one after another: each claim takes one dead letter
     * (a claim of all of them at once left the rest waiting for their 30 s claim to run out, one per
     * round of the timer).
     */
    @Test
    void aRedriveOfSeveralDeadLettersSendsThemAllAtOnceNotOneAClaimApart() throws Exception {
        String queue = fresh("dlq-many");
        String name = "dm-" + queue;
        destination(queue, name, ",\"maxAttempts\":2,\"backoffMs\":10,\"backoffCapMs\":20");
        List<String> txns = List.of("many-1", "many-2", "many-3", "many-4", "many-5");
        failing.addAll(txns);
        for (int i = 0; i < txns.size(); i++) {
            push(queue, "p" + (i % 2), txns.get(i), "{\"n\":" + i + "}");
        }
        await("all dead-lettered", () -> destinations(queue).getLong("destinations[0].state.deadLetters") == txns.size());
        failing.removeAll(txns);
        api().body("{\"limit\":100}").post("/api/v1/queues/" + queue + "/destinations/" + name + "/redrive")
                .then().statusCode(200).body("redriven", Matchers.hasSize(txns.size())).body("remaining", Matchers.equalTo(0));
        await("every redriven dead letter delivered within 10 s", Duration.ofSeconds(10),
                () -> txns.stream().allMatch(t -> answered.containsKey(t + ":200")));
        await("no dead letter left", Duration.ofSeconds(10), () -> deadLetters(queue, name, "").getList("deadLetters").isEmpty());
    }

    /**
     * A redriven message that fails again does not hold the rest of its redrive back: the others are
     * sent beside its retries (up to exactly.delivery.workers at once), not after its whole schedule.
     */
    @Test
    void aRedrivenMessageThatFailsAgainHoldsTheOthersOfItsRedriveNotBack() throws Exception {
        String queue = fresh("dlq-poison");
        String name = "dp-" + queue;
        destination(queue, name, ",\"maxAttempts\":1");
        List<String> fixed = List.of("later-1", "later-2", "later-3", "later-4");
        failing.add("poison-first");
        failing.addAll(fixed);
        // the still-failing one first in the partition: a redrive claims in partition and offset order
        push(queue, "p", "poison-first", "{\"n\":0}");
        for (int i = 0; i < fixed.size(); i++) {
            push(queue, "p", fixed.get(i), "{\"n\":" + (i + 1) + "}");
        }
        await("all dead-lettered",
                () -> destinations(queue).getLong("destinations[0].state.deadLetters") == 1 + fixed.size());
        failing.removeAll(fixed);
        // a failed redrive attempt now waits 1 to 2 s, then 2 to 4 s, twice: at least 7 s to dead-letter it again
        replaceSettings(queue, name, ",\"maxAttempts\":5,\"backoffMs\":2000,\"backoffCapMs\":4000");
        api().body("{\"limit\":100}").post("/api/v1/queues/" + queue + "/destinations/" + name + "/redrive")
                .then().statusCode(200).body("redriven", Matchers.hasSize(1 + fixed.size()));
        await("the fixed ones delivered while the poison one is still retried", Duration.ofSeconds(5),
                () -> fixed.stream().allMatch(t -> answered.containsKey(t + ":200")));
        assertFalse(answered.getOrDefault("poison-first:500", 0) >= 5 + 5, "the poison one's redrive had not ended yet");
    }

    /**
     * A pause that cuts a redrive off in its backoff frees the dead letter's claim: the resume sends its
     * next attempt at once, not once the claim runs out.
     */
    @Test
    void aRedriveCutOffByAPauseGoesOnAtTheResume() throws Exception {
        // each failed redrive attempt waits 2 to 4 s
        Arranged a = inRedrivesFirstBackoff("dlq-pause", "dz-", "paused-1", 4000);
        String queue = a.queue();
        String name = a.name();
        pause(queue, name); // in the backoff after that attempt
        Thread.sleep(500);
        resume(queue, name);
        await("the redrive's second attempt soon after the resume", Duration.ofSeconds(5),
                () -> answered.getOrDefault("paused-1:500", 0) == 3);
    }

    /**
     * A stop that cuts a redrive off in its backoff keeps the dead letter's claim until that backoff
     * would have ended, as it keeps a delivery's lease: the restart (or another instance) sends the
     * redrive's next attempt no sooner than the stopped instance would have. Here each backoff is
     * 15 to 30 s (backoffMs 30000, half of it jitter).
     */
    @Test
    void aRedriveCutOffByTheStopKeepsItsClaimUntilItsBackoffEnds() throws Exception {
        String name = inRedrivesFirstBackoff("dlq-stop", "ds-", "stopped-1", 30000).name();
        Thread.sleep(500); // its backoff begins
        try {
            dispatcher.onStop(null);
            double left = pool.preparedQuery("SELECT extract(epoch FROM claimed_until - now()) FROM exactly.destination_dead_letters "
                    + "WHERE destination = $1").execute(Tuple.of(name)).await().indefinitely().iterator().next().getDouble(0);
            assertTrue(left > 10 && left <= 31, "the claim lasts until the backoff ends, " + left + " s left");
            assertEquals(2, answered.getOrDefault("stopped-1:500", 0), "no attempt after the stop");
        } finally {
            dispatcher.onStart(null);
        }
    }

    /**
     * A redrive's failed attempts reach the destination's failedAttempts and lastError as each is
     * made, as an ordinary delivery's do, not once the redrive ends; each is counted once.
     */
    @Test
    void aRedrivesFailedAttemptsShowInTheDestinationsFiguresAsTheyAreMade() throws Exception {
        // each failed redrive attempt waits 2 to 4 s: the redrive lasts at least 4 s
        Arranged a = deadLetteredForRedrive("dlq-figures", "df-", "figures-1", ",\"maxAttempts\":3,\"backoffMs\":4000,\"backoffCapMs\":4000");
        String queue = a.queue();
        String name = a.name();
        assertEquals(1, destinations(queue).getLong("destinations[0].state.failedAttempts"));
        String firstErrorAt = destinations(queue).getString("destinations[0].state.lastErrorAt");
        api().body("{\"limit\":100}").post("/api/v1/queues/" + queue + "/destinations/" + name + "/redrive")
                .then().statusCode(200);
        await("the redrive's first attempt", Duration.ofSeconds(10), () -> answered.getOrDefault("figures-1:500", 0) == 2);
        await("that failed attempt in the figures while the redrive waits to try again", Duration.ofSeconds(2),
                () -> destinations(queue).getLong("destinations[0].state.failedAttempts") == 2);
        JsonPath during = destinations(queue);
        assertEquals(2, answered.get("figures-1:500"), "still in its backoff: " + during.prettify());
        assertTrue(during.getString("destinations[0].state.lastError").contains("500"), during.prettify());
        assertFalse(firstErrorAt.equals(during.getString("destinations[0].state.lastErrorAt")),
                "the redrive's attempt is the last error: " + during.prettify());

        await("the redrive's three attempts made, dead-lettered again", Duration.ofSeconds(20),
                () -> answered.getOrDefault("figures-1:500", 0) == 4
                        && deadLetters(queue, name, "").get("deadLetters[0].redriveRequestedAt") == null);
        Thread.sleep(300);
        assertEquals(4, destinations(queue).getLong("destinations[0].state.failedAttempts"), "each attempt counted once");
    }

    /**
     * Every dead-lettering logs one WARN naming the destination, queue, partition, offset, messageId
     * and attempts: the first, and each time a redrive of the dead letter fails again. Neither the
     * payload nor the signing secret is logged.
     */
    @Test
    void everyDeadLetteringLogsOneWarningAndARedriveThatFailsAgainToo() throws Exception {
        String queue = fresh("dlq-warn");
        String name = "dw-" + queue;
        String secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        destination(queue, name, ",\"signingSecret\":\"" + secret + "\",\"maxAttempts\":2,\"backoffMs\":10,\"backoffCapMs\":20");
        failing.add("poison-w");
        String payloadMark = "payload-mark-" + queue;
        try (LogCapture capture = LogCapture.open()) {
            String id = push(queue, "w", "poison-w", "{\"mark\":\"" + payloadMark + "\"}");
            await("dead-lettered", () -> destinations(queue).getLong("destinations[0].state.deadLetters") == 1
                    && warnings(capture, id).size() == 1);
            String first = warnings(capture, id).get(0);
            for (String part : List.of("destination " + name, id, queue + "/w offset 0", "after 2 attempts")) {
                assertTrue(first.contains(part), part + " in " + first);
            }

            // a redrive that fails its attempts again dead-letters the message anew: its own warning
            api().body("{\"messageIds\":[\"" + id + "\"]}").post("/api/v1/queues/" + queue + "/destinations/" + name + "/redrive")
                    .then().statusCode(200).body("redriven", Matchers.contains(id));
            await("the redrive failed again", () -> answered.getOrDefault("poison-w:500", 0) == 4
                    && deadLetters(queue, name, "").get("deadLetters[0].redriveRequestedAt") == null);
            await("its warning", () -> warnings(capture, id).size() == 2);
            String second = warnings(capture, id).get(1);
            for (String part : List.of("destination " + name, id, queue + "/w offset 0", "after 2 attempts")) {
                assertTrue(second.contains(part), part + " in " + second);
            }
            Thread.sleep(300);
            assertEquals(2, warnings(capture, id).size(), "one warning per dead-lettering");

            // a redrive of a message whose data retention purged cannot send it: dead-lettered anew, saying so
            ConsumeFixtures.options(queue, Map.of("retentionSeconds", 60));
            ConsumeFixtures.age(pool, queue, "w", 0, 0, 120, true, false);
            ConsumeFixtures.maintenance();
            api().get("/api/v1/messages/" + id).then().statusCode(404);
            api().body("{\"messageIds\":[\"" + id + "\"]}").post("/api/v1/queues/" + queue + "/destinations/" + name + "/redrive")
                    .then().statusCode(200).body("redriven", Matchers.contains(id));
            await("its warning", () -> warnings(capture, id).size() == 3);
            String third = warnings(capture, id).get(2);
            for (String part : List.of("destination " + name, id, queue + "/w offset 0", "after 0 attempts", "purged")) {
                assertTrue(third.contains(part), part + " in " + third);
            }
            assertTrue(deadLetters(queue, name, "").getString("deadLetters[0].error").contains("purged"));
            for (ExtLogRecord r : capture.records()) {
                String text = String.valueOf(r.getFormattedMessage());
                assertFalse(text.contains(payloadMark), "the payload logged: " + text);
                assertFalse(text.contains(secret.substring(6)), "the secret logged: " + text);
            }
        }
    }

    /** The WARN records of the dispatcher that name the message, formatted. */
    private static List<String> warnings(LogCapture capture, String messageId) {
        return capture.records().stream()
                .filter(r -> r.getLevel().intValue() >= java.util.logging.Level.WARNING.intValue())
                .filter(r -> Dispatcher.class.getName().equals(r.getLoggerName()))
                .map(ExtLogRecord::getFormattedMessage)
                .filter(t -> t != null && t.contains(messageId))
                .toList();
    }

    /**
     * A destination deleted while a message's last attempt is under way, and created again under its
     * name before the attempt fails: the new destination starts afresh. It neither lists that
     * message as its dead letter (a redrive would send the new receiver a message it never had) nor
     * counts the old attempt in its figures.
     */
    @Test
    void anAttemptUnderWayWhenItsDestinationIsDeletedAndCreatedAgainCountsForNeither() throws Exception {
        String queue = fresh("dlq-again");
        String name = "ag-" + queue;
        destination(queue, name, ",\"maxAttempts\":1");
        held.add("again-1");
        failing.add("again-1");
        push(queue, "p", "again-1", "{}");
        await("the attempt under way", () -> arrived.contains("again-1"));
        api().delete("/api/v1/queues/" + queue + "/destinations/" + name).then().statusCode(204);
        destination(queue, name, ",\"maxAttempts\":1");
        letGo.countDown();
        await("the old attempt's answer", () -> answered.containsKey("again-1:500"));
        Thread.sleep(1_500); // the old worker's bookkeeping, which followed the answer at once before
        JsonPath list = destinations(queue);
        assertEquals(0, list.getLong("destinations[0].state.failedAttempts"), answered + "\n" + list.prettify());
        assertEquals(0, list.getLong("destinations[0].state.deadLetters"), list.prettify());
        assertEquals(List.of(), deadLetters(queue, name, "").getList("deadLetters"));
    }

    /**
     * A destination created again under the name of a deleted one, over its group's cursor that a
     * pop under way at the delete wrote back (played here by writing it back), starts at the end as
     * any new destination does: the message stored before it is never sent to it.
     */
    @Test
    void aDestinationCreatedAgainOverACursorWrittenBackStartsAtTheEnd() throws Exception {
        String queue = fresh("dlq-back");
        String name = "bk-" + queue;
        push(queue, "p", "back-1", "{}");
        destination(queue, name, "");
        api().delete("/api/v1/queues/" + queue + "/destinations/" + name).then().statusCode(204);
        pool.preparedQuery("INSERT INTO exactly.consumer_cursors (partition_id, consumer_group, next_offset) "
                        + "SELECT p.id, $2, 0 FROM exactly.partitions p JOIN exactly.queues q ON q.id = p.queue_id WHERE q.name = $1")
                .execute(Tuple.of(queue, Destination.GROUP_PREFIX + name)).await().atMost(java.time.Duration.ofSeconds(10));
        destination(queue, name, "");
        push(queue, "p", "back-2", "{}");
        await("the message stored after it", () -> answered.containsKey("back-2:200"));
        assertFalse(answered.containsKey("back-1:200"), "the message stored before it was sent to it: " + answered);
    }

    /**
     * A pop under a deleted destination's group, as an instance that has not read the delete yet
     * makes, leases nothing and writes no cursor: the group does not start again from the first
     * offset (which sent the deleted destination the queue's history, and a destination created
     * again under the name inherited it).
     */
    @Test
    void aPopOfADeletedDestinationsGroupLeasesNothingAndWritesNoCursor() {
        String queue = fresh("dlq-gone");
        String name = "gn-" + queue;
        push(queue, "p", "gone-1", "{}");
        destination(queue, name, "");
        api().delete("/api/v1/queues/" + queue + "/destinations/" + name).then().statusCode(204);
        JsonPath popped = DestinationFixtures.popAsDestination(queue, name, 30);
        assertEquals(List.of(), popped.getList("messages"), popped.prettify());
        long cursors = pool.preparedQuery("SELECT count(*) FROM exactly.consumer_cursors WHERE consumer_group = $1")
                .execute(Tuple.of(Destination.GROUP_PREFIX + name)).await().atMost(java.time.Duration.ofSeconds(10))
                .iterator().next().getLong(0);
        assertEquals(0, cursors);
    }

    @Test
    void theListingRefusesBadParametersAndUnknownDestinationsAndAsksForTheKey() {
        String queue = fresh("dlq-refuse");
        String name = "dl-" + queue;
        destination(queue, name, "");
        String path = "/api/v1/queues/" + queue + "/destinations/" + name + "/dead-letters";
        assertEquals(List.of(), deadLetters(queue, name, "").getList("deadLetters"));
        for (String query : List.of("?limit=0", "?limit=1001", "?limit=x", "?after=12", "?after=1-2", "?cursor=1", "?limit=5&limit=6")) {
            api().get(path + query).then().statusCode(400).contentType("application/problem+json");
        }
        api().get(path + "?cursor=1").then().body("errors[0].field", Matchers.equalTo("cursor"));
        api().get("/api/v1/queues/" + queue + "/destinations/nope-" + queue + "/dead-letters").then().statusCode(404)
                .contentType("application/problem+json");
        // a destination of another queue is not this queue's
        api().get("/api/v1/queues/other-" + queue + "/destinations/" + name + "/dead-letters").then().statusCode(404);
        anonymous().get(path).then().statusCode(401);
    }

    @Test
    void aMessagesDeliveriesTellADeadLetterARetryAndAMessageStoredBeforeTheDestination() throws Exception {
        String queue = fresh("dlq-view");
        String before = push(queue, "p", "before", "{}");
        String dead = "dead-" + queue;
        String slow = "slow-" + queue;
        destination(queue, dead, ",\"maxAttempts\":3,\"backoffMs\":10,\"backoffCapMs\":20");
        failing.add("poison");
        String poison = push(queue, "p", "poison", "{}");
        String fine = push(queue, "p", "fine", "{}");
        await("dead-lettered, then the next delivered", () -> answered.containsKey("fine:200")
                && destinations(queue).getLong("destinations[0].state.deadLetters") == 1);

        Map<String, Object> d = deliveryFor(poison, dead);
        assertEquals("dead-lettered", d.get("state"), d.toString());
        assertEquals(3, d.get("attempts"), d.toString());
        assertTrue(String.valueOf(d.get("lastError")).contains("500"), d.toString());
        assertEquals("before-start", deliveryFor(before, dead).get("state"));
        await("the delivered one acked", () -> "settled".equals(deliveryFor(fine, dead).get("state")));
        assertNull(deliveryFor(fine, dead).get("attempts"), "acked and passed: the destination keeps no count of it");

        // a second destination that retries the message (long backoff): retrying, with its recorded attempts
        create(queue, slow, "{\"url\":\"" + url() + "\",\"maxAttempts\":100,\"backoffMs\":60000,\"backoffCapMs\":60000}");
        failing.add("poison-r");
        String retried = push(queue, "r", "poison-r", "{}");
        await("its first attempt failed and recorded", () -> recorded(slow) >= 1);
        Map<String, Object> r = deliveryFor(retried, slow);
        assertEquals("retrying", r.get("state"), r.toString());
        assertEquals(recorded(slow), ((Number) r.get("attempts")).longValue(), r.toString());
    }

    /**
     * A message whose attempt is under way is leased on attempt 1 (the number its request carries in
     * Exactly-Attempt); once delivered and passed by the cursor, no count of it is kept, so none is claimed.
     */
    @Test
    void aMessageBeingSentIsLeasedOnItsFirstAttempt() throws Exception {
        String queue = fresh("dlq-leased");
        String name = "ld-" + queue;
        destination(queue, name, "");
        held.add("slow");
        String slow = push(queue, "p", "slow", "{}");
        await("its first attempt under way", () -> arrived.contains("slow"));
        Map<String, Object> d = deliveryFor(slow, name);
        assertEquals("leased", d.get("state"), d.toString());
        assertEquals(1, d.get("attempts"), d.toString());
        letGo.countDown();
        await("delivered and acked", () -> "settled".equals(deliveryFor(slow, name).get("state")));
        assertNull(deliveryFor(slow, name).get("attempts"));
    }

    @Test
    void aMessageIsBeforeStartByItsOffsetNotItsClockAndAReplayMakesItTheDestinations() throws Exception {
        String queue = fresh("dlq-start");
        String name = "st-" + queue;
        String before = push(queue, "p", "before", "{}");
        destination(queue, name, "");
        String after = push(queue, "p", "after", "{}");
        await("the one stored after the start delivered", () -> "settled".equals(deliveryFor(after, name).get("state")));
        assertEquals("before-start", deliveryFor(before, name).get("state"));
        assertEquals(null, answered.get("before:200"), "never sent");

        // a push that read the clock before the destination was created and committed after it: its message
        // is in the destination's range (and was delivered), whatever its created_at says
        pool.preparedQuery("UPDATE exactly.messages SET created_at = (SELECT started_at - interval '1 second' "
                        + "FROM exactly.destination_state WHERE name = $2) WHERE message_id = $1")
                .execute(Tuple.of(java.util.UUID.fromString(after), name)).await().indefinitely();
        assertEquals("settled", deliveryFor(after, name).get("state"), "delivered, so not before the start");

        // a replay from offset 0 sends the earlier message too: from then on it is the destination's
        api().body("{\"fromOffset\":0}").post("/api/v1/queues/" + queue + "/destinations/" + name + "/replay")
                .then().statusCode(200);
        await("the earlier one sent by the replay", () -> answered.containsKey("before:200"));
        await("and settled", () -> "settled".equals(deliveryFor(before, name).get("state")));
    }

    /** The attempts the destination recorded for the messages it retries, summed. */
    private long recorded(String name) {
        return pool.preparedQuery("SELECT COALESCE(sum(attempts), 0) FROM exactly.destination_attempts WHERE destination = $1")
                .execute(Tuple.of(name)).await().indefinitely().iterator().next().getLong(0);
    }
}
