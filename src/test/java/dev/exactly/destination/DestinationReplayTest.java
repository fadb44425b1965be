package dev.exactly.destination;

import static dev.exactly.destination.DestinationFixtures.startReceiver;
import static dev.exactly.destination.DestinationFixtures.stopReceiver;
import static dev.exactly.destination.DestinationFixtures.receiverUrl;
import static dev.exactly.destination.DestinationFixtures.await;
import static dev.exactly.destination.DestinationFixtures.create;
import static dev.exactly.destination.DestinationFixtures.deleteAll;
import static dev.exactly.destination.DestinationFixtures.fresh;
import static dev.exactly.testing.Api.api;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.standardwebhooks.Webhook;
import dev.exactly.testing.LogCapture;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Replaying a destination from an offset or a time, against the real PostgreSQL and a receiver on
 * loopback (127.0.0.2, the address the test profile allows) that verifies each Standard Webhooks
 * signature: the messages from there on arrive again, in offset order per partition, with their
 * original ids; another destination of the same queue sees nothing again; bad input is a 400 naming
 * the field and changes nothing; an unknown destination is a 404.
 */
@QuarkusTest
class DestinationReplayTest {

    static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

    /** One request the receiver got. */
    record Received(String path, String id, String partition, long offset, String body) {
    }

    @Inject
    Pool pool;

    @Inject
    MeterRegistry meters;

    HttpServer server;
    final List<Received> received = new CopyOnWriteArrayList<>();
    /** Transaction ids the receiver answers 500, every time. */
    final Set<String> refused = ConcurrentHashMap.newKeySet();
    final List<String> badSignatures = new CopyOnWriteArrayList<>();

    @BeforeEach
    void receiver() throws Exception {
        Webhook verifier = new Webhook(SECRET);
        server = startReceiver(4, ex -> {
            String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            Map<String, List<String>> headers = new HashMap<>();
            ex.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(), v));
            try {
                verifier.verify(body, headers);
            } catch (Exception e) {
                badSignatures.add(String.valueOf(e));
            }
            received.add(new Received(ex.getRequestURI().getPath(), headers.get("webhook-id").get(0),
                    headers.get("exactly-partition").get(0), Long.parseLong(headers.get("exactly-offset").get(0)), body));
            List<String> txn = headers.get("exactly-transaction-id");
            ex.sendResponseHeaders(txn != null && refused.contains(txn.get(0)) ? 500 : 200, -1);
            ex.close();
        });
    }

    @AfterEach
    void stop() {
        stopReceiver(server);
        deleteAll(pool);
    }

    private String url(String path) {
        return receiverUrl(server, path);
    }


    private void destination(String queue, String name, String path) {
        create(queue, name, "{\"url\":\"" + url(path) + "\",\"signingSecret\":\"" + SECRET + "\"}");
    }

    private static String push(String queue, String partition, String txn) {
        return DestinationFixtures.push(queue, partition, txn, "{\"txn\":\"" + txn + "\"}");
    }

    private static JsonPath replay(String queue, String name, String body, int status) {
        return api().body(body).post("/api/v1/queues/" + queue + "/destinations/" + name + "/replay")
                .then().statusCode(status).extract().jsonPath();
    }


    /** Waits until every destination of the queue has acked what it was sent (its cursors moved past it). */
    private static void settled(String queue) throws InterruptedException {
        await("nothing pending", () -> api().get("/api/v1/queues/" + queue + "/destinations").then().statusCode(200)
                .extract().jsonPath().getList("destinations.state.pending", Integer.class).stream().allMatch(n -> n == 0));
    }

    private List<Received> at(String path) {
        return received.stream().filter(r -> r.path().equals(path)).toList();
    }

    /** Per partition, the offsets that arrived at {@code path}, in arrival order. */
    private Map<String, List<Long>> offsets(List<Received> got) {
        Map<String, List<Long>> out = new LinkedHashMap<>();
        got.forEach(r -> out.computeIfAbsent(r.partition(), k -> new ArrayList<>()).add(r.offset()));
        return out;
    }

    @Test
    void aReplayFromAnOffsetDeliversAgainInOrderWithTheOriginalIdsToThatDestinationAlone() throws Exception {
        String queue = fresh("replay-offset");
        push(queue, "p0", "before-0");
        push(queue, "p1", "before-1"); // offset 0 of each partition, stored before the destinations
        destination(queue, "a-" + queue, "/a");
        destination(queue, "b-" + queue, "/b");
        Map<String, String> ids = new HashMap<>(); // partition/offset -> messageId
        for (int i = 1; i <= 3; i++) {
            ids.put("p0/" + i, push(queue, "p0", "x" + i));
            ids.put("p1/" + i, push(queue, "p1", "y" + i));
        }
        await("first deliveries", () -> at("/a").size() == 6 && at("/b").size() == 6);
        settled(queue);

        JsonPath answer = replay(queue, "a-" + queue, "{\"fromOffset\":2}", 200);
        assertEquals(List.of("p0", "p1"), answer.getList("partitions.partition"));
        assertEquals(List.of(2, 2), answer.getList("partitions.nextOffset"));
        await("the replay", () -> at("/a").size() == 10);
        Thread.sleep(300); // anything extra would arrive now
        List<Received> again = at("/a").subList(6, at("/a").size());
        assertEquals(4, again.size(), () -> "offsets 2 and 3 of each partition again: " + again);
        assertEquals(Map.of("p0", List.of(2L, 3L), "p1", List.of(2L, 3L)), offsets(again), "in offset order per partition");
        for (Received r : again) {
            assertEquals(ids.get(r.partition() + "/" + r.offset()), r.id(), "the original messageId");
        }
        assertEquals(6, at("/b").size(), "the other destination sees nothing again");
        assertEquals(List.of(), badSignatures);

        // one partition, from before the destination existed: its message from then arrives too
        replay(queue, "a-" + queue, "{\"partition\":\"p1\",\"fromOffset\":0}", 200);
        await("the partition's replay", () -> at("/a").size() == 14);
        Thread.sleep(300);
        List<Received> p1 = at("/a").subList(10, at("/a").size());
        assertEquals(Map.of("p1", List.of(0L, 1L, 2L, 3L)), offsets(p1));
        settled(queue);
    }

    @Test
    void aReplayFromATimeStartsAtTheFirstMessageStoredThen() throws Exception {
        String queue = fresh("replay-time");
        String name = "t-" + queue;
        push(queue, "p0", "before");
        destination(queue, name, "/t");
        push(queue, "p0", "old-1");
        push(queue, "p0", "old-2");
        await("the old ones", () -> at("/t").size() == 2);
        // the time between the old and the new messages, by the database's clock (created_at is its now())
        OffsetDateTime between = pool.preparedQuery("SELECT now() AS t").executeAndAwait(Tuple.tuple())
                .iterator().next().getOffsetDateTime("t");
        String n1 = push(queue, "p0", "new-1");
        String n2 = push(queue, "p0", "new-2");
        await("the new ones", () -> at("/t").size() == 4);
        settled(queue);

        // a replay makes the destination's state on this instance again (at the next timer round):
        // its meters are registered once per name, without Micrometer's "already registered" warning
        LogCapture log = LogCapture.open();
        JsonPath answer = replay(queue, name, "{\"fromTime\":\"" + between + "\"}", 200);
        assertEquals(3, answer.getInt("partitions[0].nextOffset"), "p0: before (0), old-1, old-2, then new-1 at 3");
        await("the replay", () -> at("/t").size() == 6);
        Thread.sleep(300);
        assertEquals(List.of(n1, n2), at("/t").subList(4, at("/t").size()).stream().map(Received::id).toList());
        settled(queue);

        // a time after every message: nothing again, the cursor stays where it is
        JsonPath later = replay(queue, name, "{\"fromTime\":\"" + between.plusHours(1) + "\"}", 200);
        assertEquals(5, later.getInt("partitions[0].nextOffset"));
        Thread.sleep(300);
        assertEquals(6, at("/t").size());
        log.close();
        assertEquals(List.of(), log.records().stream().map(r -> r.getFormattedMessage())
                .filter(m -> m != null && m.contains("already registered")).toList());
    }

    @Test
    void badInputIsRefusedNamingTheFieldAndChangesNothing() throws Exception {
        String queue = fresh("replay-bad");
        String name = "r-" + queue;
        push(queue, "p0", "before");
        destination(queue, name, "/r");
        push(queue, "p0", "m1");
        await("delivered", () -> at("/r").size() == 1);
        settled(queue);
        Map<String, String> bad = Map.of(
                "{}", "fromOffset",
                "{\"fromOffset\":-1}", "fromOffset",
                "{\"fromOffset\":\"one\"}", "fromOffset",
                "{\"fromOffset\":0,\"fromTime\":\"2026-12-05T10:00:00Z\"}", "fromTime",
                "{\"fromTime\":\"yesterday\"}", "fromTime",
                "{\"fromTime\":\"2026-12-05T10:00:00\"}", "fromTime",
                "{\"fromOffset\":0,\"partition\":\"nope\"}", "partition",
                "{\"fromOffset\":0,\"unknown\":1}", "unknown");
        bad.forEach((body, field) -> {
            String answer = api().body(body).post("/api/v1/queues/" + queue + "/destinations/" + name + "/replay")
                    .then().statusCode(400).contentType("application/problem+json").extract().asString();
            assertTrue(answer.contains("\"" + field + "\""), body + " -> " + answer);
        });
        api().post("/api/v1/queues/" + queue + "/destinations/" + name + "/replay").then().statusCode(400)
                .contentType("application/problem+json");
        // beyond a 64-bit integer: the bounds said are the field's, not the integer type's
        String huge = api().body("{\"fromOffset\":99999999999999999999}").post("/api/v1/queues/" + queue + "/destinations/"
                + name + "/replay").then().statusCode(400).contentType("application/problem+json").extract().asString();
        assertTrue(huge.contains("must be an integer from 0 to 9223372036854775807"), huge);
        api().body("{\"fromOffset\":0}").post("/api/v1/queues/" + queue + "/destinations/nobody/replay")
                .then().statusCode(404).contentType("application/problem+json");
        api().body("{\"fromOffset\":0}").post("/api/v1/queues/other-" + queue + "/destinations/" + name + "/replay")
                .then().statusCode(404);
        io.restassured.RestAssured.given().contentType("application/json").body("{\"fromOffset\":0}")
                .post("/api/v1/queues/" + queue + "/destinations/" + name + "/replay").then().statusCode(401);
        Thread.sleep(300);
        assertEquals(1, at("/r").size(), "nothing delivered again");
        long cursor = pool.preparedQuery("SELECT c.next_offset FROM exactly.consumer_cursors c "
                        + "JOIN exactly.partitions p ON p.id = c.partition_id JOIN exactly.queues q ON q.id = p.queue_id "
                        + "WHERE q.name = $1 AND c.consumer_group = $2").executeAndAwait(Tuple.of(queue, "destination:" + name))
                .iterator().next().getLong("next_offset");
        assertEquals(2, cursor, "the cursor did not move");
    }

    /** This instance's delivered, failed-attempt and dead-letter counts for the destination, from its meters (null: none). */
    private List<Long> counted(String name) {
        List<Long> out = new ArrayList<>();
        for (String meter : List.of("exactly.destination.delivered", "exactly.destination.failed.attempts",
                "exactly.destination.dead.letters")) {
            Counter c = meters.find(meter).tag("destination", name).counter();
            if (c == null) {
                return null;
            }
            out.add((long) c.count());
        }
        return out;
    }

    private static String metrics() {
        return io.restassured.RestAssured.given().get("/q/metrics").then().statusCode(200).extract().asString();
    }

    @Test
    void aReplayPutPauseAndResumeKeepTheDestinationsMetersCountingOnlyADeleteRemovesThem() throws Exception {
        String queue = fresh("replay-meters");
        String name = "m-" + queue;
        String settings = "\"url\":\"" + url("/m") + "\",\"signingSecret\":\"" + SECRET + "\",\"maxAttempts\":2,\"backoffMs\":5";
        create(queue, name, "{" + settings + ",\"backoffCapMs\":10}");
        refused.add("poison"); // two failed attempts, then a dead letter, each time it is sent
        push(queue, "p0", "m0");
        push(queue, "p0", "poison");
        push(queue, "p0", "m2");
        await("the first deliveries counted", () -> List.of(2L, 2L, 1L).equals(counted(name)));
        settled(queue);
        assertTrue(metrics().contains("exactly_destination_delivered_total{destination=\"" + name + "\"} 2.0"), "exported");

        // the three again: the meters count them on top of what they had
        replay(queue, name, "{\"fromOffset\":0}", 200);
        await("the replay counted", () -> List.of(4L, 4L, 2L).equals(counted(name)));
        settled(queue);
        Thread.sleep(300); // anything extra would be counted now
        assertEquals(List.of(4L, 4L, 2L), counted(name), "a replay resets nothing");
        String exported = metrics();
        assertTrue(exported.contains("exactly_destination_delivered_total{destination=\"" + name + "\"} 4.0"), "delivered");
        assertTrue(exported.contains("exactly_destination_failed_attempts_total{destination=\"" + name + "\"} 4.0"), "failed");
        assertTrue(exported.contains("exactly_destination_dead_letters_total{destination=\"" + name + "\"} 2.0"), "dead letters");

        // a change, a pause and a resume neither; then one more message counts on
        api().body("{" + settings + ",\"backoffCapMs\":20}").put("/api/v1/queues/" + queue + "/destinations/" + name)
                .then().statusCode(200);
        DestinationFixtures.pause(queue, name);
        DestinationFixtures.resume(queue, name);
        push(queue, "p0", "m3");
        await("the next one counted", () -> List.of(5L, 4L, 2L).equals(counted(name)));

        api().delete("/api/v1/queues/" + queue + "/destinations/" + name).then().statusCode(204);
        await("a deleted destination's meters removed", () -> counted(name) == null);
        await("and no longer exported", () -> !metrics().contains("destination=\"" + name + "\""));
    }
}
