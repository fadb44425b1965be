package dev.exactly.console;

import static dev.exactly.consume.ConsumeFixtures.ack;
import static dev.exactly.consume.ConsumeFixtures.ackById;
import static dev.exactly.consume.ConsumeFixtures.deadLetterAll;
import static dev.exactly.consume.ConsumeFixtures.pop;
import static dev.exactly.consume.ConsumeFixtures.push;
import static dev.exactly.consume.ConsumeFixtures.pushMany;
import static dev.exactly.testing.Api.api;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The read endpoints the console calls, against the embedded PostgreSQL: the overview (paged,
 * filtered by a part of the name, with lag, oldest undelivered age and dead letters), the dead
 * letters listed without a pop, and a message found by queue and key with its deliveries. Each
 * is behind the key and writes nothing.
 */
@QuarkusTest
class ConsoleReadApiTest {

    private static String fresh(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @Test
    void theOverviewPagesThroughQueuesFilteredByName() {
        String tag = fresh("ov");
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            names.add(tag + "-q" + i);
            push(tag + "-q" + i, "p", "t", "{}");
        }
        List<String> seen = new ArrayList<>();
        String after = null;
        int pages = 0;
        do {
            var req = api().queryParam("contains", tag).queryParam("limit", 2);
            if (after != null) {
                req = req.queryParam("after", after);
            }
            JsonPath page = req.get("/api/v1/overview").then().statusCode(200).extract().jsonPath();
            seen.addAll(page.getList("queues.queue"));
            after = page.getString("next");
            pages++;
        } while (after != null);
        assertEquals(names, seen, "every queue whose name contains the text, in name order, once");
        assertEquals(3, pages);
        api().queryParam("contains", "a/b").get("/api/v1/overview").then().statusCode(400);
        api().queryParam("limit", 0).get("/api/v1/overview").then().statusCode(400);
        Api.anonymous().get("/api/v1/overview").then().statusCode(401);
    }

    @Test
    void theOverviewShowsLagOldestAgeAndDeadLetters() {
        String q = fresh("ov-figures");
        pushMany(q, "p", "m", 3);
        deadLetterAll(q, "p", 3);
        pushMany(q, "p", "n", 2);
        JsonPath o = api().queryParam("contains", q).get("/api/v1/overview").then().statusCode(200).extract().jsonPath();
        assertEquals(List.of(q, q + ".dlq"), o.getList("queues.queue"), "a dead-letter queue is listed as the queue it is");
        Map<String, Object> e = o.getMap("queues[0]");
        assertEquals(5, ((Number) e.get("messages")).intValue());
        assertEquals(3, ((Number) e.get("deadLetters")).intValue());
        assertEquals(3, ((Number) e.get("deadLettersNotRedriven")).intValue());
        assertEquals(q + ".dlq", e.get("deadLetterQueue"));
        assertEquals("g", o.getString("queues[0].consumerGroups[0].group"));
        assertEquals(2, o.getInt("queues[0].consumerGroups[0].lag"));
        assertNotNull(e.get("oldestUndeliveredAgeSeconds"));
        assertEquals(0, o.getInt("queues[0].duplicates.atLeast"));

        api().body("{\"limit\":1}").post("/api/v1/queues/" + q + "/redrive").then().statusCode(200);
        assertEquals(2, api().queryParam("contains", q).get("/api/v1/overview").then().statusCode(200).extract()
                .jsonPath().getInt("queues[0].deadLettersNotRedriven"));
    }

    @Test
    void deadLettersAreListedWithoutAPopAPageAtATime() {
        String q = fresh("dl-list");
        List<String> ids = pushMany(q, "p", "m", 5);
        List<String> copies = deadLetterAll(q, "p", 5);
        String copy0 = copies.get(0);
        api().body("{\"messageIds\":[\"" + copy0 + "\"]}").post("/api/v1/queues/" + q + "/redrive").then().statusCode(200);

        List<Map<String, Object>> listed = new ArrayList<>();
        String after = null;
        int pages = 0;
        do {
            var req = api().queryParam("limit", 2);
            if (after != null) {
                req = req.queryParam("after", after);
            }
            JsonPath page = req.get("/api/v1/queues/{q}/dead-letters", q).then().statusCode(200).extract().jsonPath();
            assertEquals(q + ".dlq", page.getString("deadLetterQueue"));
            listed.addAll(page.getList("deadLetters"));
            after = page.getString("next");
            pages++;
        } while (after != null);
        assertEquals(3, pages);
        assertEquals(copies, listed.stream().map(m -> m.get("messageId")).toList());
        @SuppressWarnings("unchecked")
        Map<String, Object> origin = (Map<String, Object>) listed.get(0).get("origin");
        assertEquals(q, origin.get("queue"));
        assertEquals(ids.get(0), origin.get("messageId"));
        assertEquals("m0", origin.get("transactionId"));
        assertNotNull(listed.get(0).get("redrivenTo"), "the redriven copy says where it went");
        assertNull(listed.get(1).get("redrivenTo"));

        // listing popped nothing: a group reading the dead-letter queue still gets all five
        assertEquals(5, pop(q + ".dlq", "p", "reader", 10).size());
        api().get("/api/v1/queues/{q}/dead-letters", fresh("none")).then().statusCode(404);
        api().queryParam("after", "x").get("/api/v1/queues/{q}/dead-letters", q).then().statusCode(400);
    }

    @Test
    void aKeyAnsweredDuplicateLeadsToItsOriginalAndItsDeliveries() {
        String q = fresh("lookup");
        Map<String, Object> original = push(q, "p", "order-1", "{\"total\":12}");
        Map<String, Object> again = push(q, "p", "order-1", "{\"total\":12}");
        assertEquals("duplicate", again.get("status"));
        assertEquals(original.get("messageId"), again.get("messageId"));

        JsonPath found = api().queryParam("queue", q).queryParam("transactionId", "order-1")
                .get("/api/v1/messages").then().statusCode(200).extract().jsonPath();
        assertEquals(1, found.getList("messages").size());
        assertEquals(original.get("messageId"), found.getString("messages[0].message.messageId"));
        assertEquals(12, found.getInt("messages[0].message.payload.total"));
        assertEquals(3600, found.getInt("messages[0].windowSeconds"));
        OffsetDateTime stored = OffsetDateTime.parse(found.getString("messages[0].storedAt"));
        assertEquals(stored.plusSeconds(3600).toInstant(),
                OffsetDateTime.parse(found.getString("messages[0].duplicatesUntil")).toInstant());

        assertEquals(List.of(), api().queryParam("queue", q).queryParam("transactionId", "order-2")
                .get("/api/v1/messages").then().statusCode(200).extract().jsonPath().getList("messages"));
        api().queryParam("queue", q).get("/api/v1/messages").then().statusCode(400);

        String id = (String) original.get("messageId");
        assertEquals(List.of(), api().get("/api/v1/messages/{id}/deliveries", id).then().statusCode(200)
                .extract().jsonPath().getList("deliveries"), "no group reads the partition yet");
        pop(q, "p", "billing", 10);
        JsonPath d = api().get("/api/v1/messages/{id}/deliveries", id).then().statusCode(200).extract().jsonPath();
        assertEquals("billing", d.getString("deliveries[0].consumerGroup"));
        assertEquals("leased", d.getString("deliveries[0].state"));
        api().get("/api/v1/messages/{id}/deliveries", UUID.randomUUID().toString()).then().statusCode(404);
        assertTrue(id.length() > 0);
    }

    /** The group's entry of GET /api/v1/messages/{id}/deliveries. */
    private static Map<String, Object> deliveryOf(Object messageId, String group) {
        List<Map<String, Object>> all = api().get("/api/v1/messages/{id}/deliveries", messageId).then().statusCode(200)
                .extract().jsonPath().getList("deliveries");
        return all.stream().filter(d -> group.equals(d.get("consumerGroup"))).findFirst()
                .orElseThrow(() -> new AssertionError("no delivery for " + group + " in " + all));
    }

    private static void assertDelivery(Object messageId, String group, String state, Integer attempts) {
        Map<String, Object> d = deliveryOf(messageId, group);
        assertEquals(state, d.get("state"), d.toString());
        assertEquals(attempts, d.get("attempts"), d.toString());
    }

    /**
     * A message's {@code attempts} for a consumer group is the number of deliveries made so far, as
     * pop's {@code attempts} (SQS's receive count): leased on delivery N answers N, a failed ack or an
     * expired lease ends a delivery (retrying, N), settled answers what it took while the group still
     * records it, and nothing once the cursor moved past it (no record is kept).
     */
    @Test
    void aMessagesAttemptsCountItsDeliveriesInEveryState() throws Exception {
        String q = fresh("attempts");
        String group = "billing";
        Map<String, Object> a = push(q, "p", "a", "{}");
        Map<String, Object> b = push(q, "p", "b", "{}");
        List<Map<String, Object>> first = pop(q, "p", group, 2);
        assertEquals(2, first.size());
        assertDelivery(a.get("messageId"), group, "leased", 1);
        assertDelivery(b.get("messageId"), group, "leased", 1);

        // a failed ack ends a's delivery while b's lease is still held: a is to be delivered again
        ack(ackById(first.get(0), group, "failed")).then().statusCode(200);
        assertDelivery(a.get("messageId"), group, "retrying", 1);
        assertDelivery(b.get("messageId"), group, "leased", 1);
        // b acked ahead of a: settled, kept above the cursor with the one delivery it took
        ack(ackById(first.get(1), group, "completed")).then().statusCode(200);
        assertDelivery(b.get("messageId"), group, "settled", 1);
        Map<String, Object> c = push(q, "p", "c", "{}");
        assertDelivery(c.get("messageId"), group, "waiting", 0);

        // a's second delivery, under a lease of one second left to expire: it ended, not yet charged by a pop
        Map<String, Object> body = new HashMap<>(Map.of("queue", q, "partition", "p", "consumerGroup", group,
                "batch", 1, "leaseSeconds", 1));
        List<Map<String, Object>> second = pop(body);
        assertEquals(a.get("messageId"), second.get(0).get("messageId"));
        assertEquals(2, second.get(0).get("attempts"));
        assertDelivery(a.get("messageId"), group, "leased", 2);
        Thread.sleep(1_500);
        assertDelivery(a.get("messageId"), group, "retrying", 2);

        // the third delivery: the pop charges the expired one and answers 3, as the endpoint does
        List<Map<String, Object>> third = pop(q, "p", group, 1);
        assertEquals(3, third.get(0).get("attempts"));
        assertDelivery(a.get("messageId"), group, "leased", 3);
        ack(ackById(third.get(0), group, "completed")).then().statusCode(200);
        // the cursor moved past a and b: their records are gone, so no number is claimed
        assertDelivery(a.get("messageId"), group, "settled", null);
        assertDelivery(b.get("messageId"), group, "settled", null);
        assertDelivery(c.get("messageId"), group, "waiting", 0);
    }
}
