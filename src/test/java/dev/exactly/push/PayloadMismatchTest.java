package dev.exactly.push;

import static dev.exactly.consume.ConsumeFixtures.age;
import static dev.exactly.consume.ConsumeFixtures.longOf;
import static dev.exactly.consume.ConsumeFixtures.maintenance;
import static dev.exactly.consume.ConsumeFixtures.partitionId;
import static dev.exactly.testing.Api.api;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A transactionId sent again with another payload: the duplicate's answer says
 * whether the payload matched, and a queue with payloadMismatch "reject" refuses it, end to end
 * against the embedded PostgreSQL.
 */
@QuarkusTest
class PayloadMismatchTest {

    @Inject
    Pool pool;

    @Inject
    io.micrometer.core.instrument.MeterRegistry registry;

    private static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID();
    }

    private static String item(String queue, String txn, String payload) {
        return "{\"queue\":\"" + queue + "\",\"partition\":\"p\",\"transactionId\":\"" + txn + "\",\"payload\":"
                + payload + "}";
    }

    private static String items(String... items) {
        return "{\"items\":[" + String.join(",", items) + "]}";
    }

    private static JsonPath push(String body) {
        return api().body(body).post("/api/v1/push").then().statusCode(200).extract().jsonPath();
    }

    private static void mismatch(String queue, String mode) {
        api().body("{\"options\":{\"payloadMismatch\":\"" + mode + "\"}}").patch("/api/v1/queues/" + queue)
                .then().statusCode(200).body("options.payloadMismatch", equalTo(mode));
    }

    private long stored(String queue) {
        return longOf(pool, "SELECT count(*) FROM exactly.messages WHERE partition_id = $1", partitionId(pool, queue, "p"));
    }

    @Test
    void aDuplicateSaysWhetherItsPayloadMatchedTheOriginal() {
        String q = unique("mm");
        JsonPath first = push(items(item(q, "order-1", "{\"total\":12.5}")));
        assertEquals("queued", first.getString("results[0].status"));
        assertFalse(first.getMap("results[0]").containsKey("payloadMatches"), "a stored item carries no comparison");
        String id = first.getString("results[0].messageId");

        JsonPath same = push(items(item(q, "order-1", "{\"total\":12.5}")));
        assertEquals("duplicate", same.getString("results[0].status"));
        assertEquals(id, same.getString("results[0].messageId"));
        assertEquals(Boolean.TRUE, same.get("results[0].payloadMatches"));

        JsonPath other = push(items(item(q, "order-1", "{\"total\":99}")));
        assertEquals("duplicate", other.getString("results[0].status"), "report (the default) still answers duplicate");
        assertEquals(id, other.getString("results[0].messageId"));
        assertEquals(Boolean.FALSE, other.get("results[0].payloadMatches"));

        // bytes are compared: the same value spelt with other whitespace is another payload
        JsonPath spaced = push(items(item(q, "order-1", "{ \"total\": 12.5 }")));
        assertEquals(Boolean.FALSE, spaced.get("results[0].payloadMatches"));
        assertEquals(1, stored(q), "no duplicate wrote anything");
        api().get("/api/v1/messages/" + id).then().statusCode(200).body("payload.total", equalTo(12.5f));
    }

    @Test
    void followersInsideOneRequestAreComparedWithTheItemTheyRepeat() {
        String q = unique("mm-req");
        JsonPath r = push(items(item(q, "a", "1"), item(q, "a", "1"), item(q, "a", "2")));
        assertEquals(List.of("queued", "duplicate", "duplicate"), r.getList("results.status"));
        assertNull(r.get("results[0].payloadMatches"));
        assertEquals(Boolean.TRUE, r.get("results[1].payloadMatches"));
        assertEquals(Boolean.FALSE, r.get("results[2].payloadMatches"));

        // the leader is itself a duplicate: its followers are compared with the stored original
        JsonPath again = push(items(item(q, "a", "2"), item(q, "a", "1")));
        assertEquals(List.of("duplicate", "duplicate"), again.getList("results.status"));
        assertEquals(Boolean.FALSE, again.get("results[0].payloadMatches"));
        assertEquals(Boolean.TRUE, again.get("results[1].payloadMatches"));
        assertEquals(1, stored(q));
    }

    @Test
    void aSingleItemRequestWithAnotherPayloadIsRefusedWith422InARejectQueue() {
        String q = unique("mm-reject");
        mismatch(q, "reject");
        String id = push(items(item(q, "order-1", "{\"total\":12.5}"))).getString("results[0].messageId");
        long offset = longOf(pool, "SELECT last_offset FROM exactly.partitions WHERE id = $1", partitionId(pool, q, "p"));

        api().body(items(item(q, "order-1", "{\"total\":99}"))).post("/api/v1/push").then().statusCode(422)
                .contentType("application/problem+json")
                .body("type", equalTo("/problems/payload-mismatch"))
                .body("status", equalTo(422))
                .body("errors[0].index", equalTo(0))
                .body("errors[0].field", equalTo("payload"))
                .body("detail", org.hamcrest.Matchers.startsWith("items[0]: transactionId 'order-1'"))
                .body("detail", org.hamcrest.Matchers.containsString(id));
        assertEquals(1, stored(q), "nothing written for the rejected item");
        assertEquals(offset, longOf(pool, "SELECT last_offset FROM exactly.partitions WHERE id = $1",
                partitionId(pool, q, "p")), "no offset allocated");

        // the same payload again is still an ordinary duplicate
        JsonPath same = push(items(item(q, "order-1", "{\"total\":12.5}")));
        assertEquals("duplicate", same.getString("results[0].status"));
        assertEquals(Boolean.TRUE, same.get("results[0].payloadMatches"));
    }

    @Test
    void inAMultiItemRequestOnlyTheMismatchingItemIsRejectedTheOthersAreSettledAsUsual() {
        String q = unique("mm-multi");
        mismatch(q, "reject");
        String original = push(items(item(q, "a", "\"A\""))).getString("results[0].messageId");

        JsonPath r = push(items(item(q, "new-1", "1"), item(q, "a", "\"B\""), item(q, "a", "\"A\""),
                item(q, "new-2", "2"), item(q, "new-2", "3")));
        assertEquals(List.of("queued", "rejected", "duplicate", "queued", "rejected"), r.getList("results.status"));
        assertEquals(original, r.getString("results[1].messageId"), "a rejected item names the stored original");
        assertEquals(Boolean.FALSE, r.get("results[1].payloadMatches"));
        assertEquals(422, r.getInt("results[1].problem.status"));
        assertEquals("/problems/payload-mismatch", r.getString("results[1].problem.type"));
        assertEquals(1, r.getInt("results[1].problem.errors[0].index"));
        assertTrue(r.getString("results[1].problem.detail").startsWith("items[1]: "));
        assertEquals(Boolean.TRUE, r.get("results[2].payloadMatches"));
        assertFalse(r.getMap("results[2]").containsKey("problem"));
        // a follower of an item stored by this very request, with another payload
        assertEquals(r.getString("results[3].messageId"), r.getString("results[4].messageId"));
        assertEquals("items[4]", r.getString("results[4].problem.detail").substring(0, 8));
        assertEquals(3, stored(q), "a, new-1 and new-2: nothing written for the rejected items");
    }

    @Test
    void onceTheOriginalsDataIsPurgedTheComparisonIsUnknown() {
        String q = unique("mm-purged");
        api().body("{\"options\":{\"retentionSeconds\":60,\"dedupWindowSeconds\":3600,\"payloadMismatch\":\"reject\"}}")
                .patch("/api/v1/queues/" + q).then().statusCode(200);
        push(items(item(q, "k", "1")));
        age(pool, q, "p", 0, 0, 120, true, false);
        maintenance();
        assertEquals(0, stored(q), "data past retention purged, its hash kept inside the window");

        JsonPath again = push(items(item(q, "k", "2")));
        assertEquals("duplicate", again.getString("results[0].status"), "unknown is never rejected");
        assertEquals("00000000-0000-0000-0000-000000000000", again.getString("results[0].messageId"));
        assertFalse(again.getMap("results[0]").containsKey("payloadMatches"), "unknown: absent");
    }

    @Test
    void aMessageStoredWithoutADigestGivesUnknown() {
        // rows written before V12 have no digest
        String q = unique("mm-old");
        push(items(item(q, "k", "1")));
        dev.exactly.consume.ConsumeFixtures.sql(pool, "UPDATE exactly.messages SET payload_digest = NULL "
                + "WHERE partition_id = $1", partitionId(pool, q, "p"));
        JsonPath again = push(items(item(q, "k", "1")));
        assertEquals("duplicate", again.getString("results[0].status"));
        assertFalse(again.getMap("results[0]").containsKey("payloadMatches"));
    }

    @Test
    void theOptionIsShownValidatedAndResetByConfigure() {
        String q = unique("mm-opt");
        api().body("{\"options\":{\"payloadMismatch\":\"refuse\"}}").patch("/api/v1/queues/" + q).then().statusCode(400)
                .contentType("application/problem+json")
                .body("errors[0].field", equalTo("options.payloadMismatch"))
                .body("errors[0].message", equalTo("must be one of \"report\", \"reject\""));
        api().body("{\"options\":{\"payloadMismatch\":1}}").patch("/api/v1/queues/" + q).then().statusCode(400);
        api().get("/api/v1/queues/" + q).then().statusCode(404);

        mismatch(q, "reject");
        api().get("/api/v1/queues/" + q).then().statusCode(200).body("options.payloadMismatch", equalTo("reject"))
                .body("options.dedupWindowSeconds", equalTo(3600));
        api().body("{\"queue\":\"" + q + "\",\"options\":{}}").post("/api/v1/configure").then().statusCode(200)
                .body("options.payloadMismatch", equalTo("report"))
                .body("reset.find { it.option == 'payloadMismatch' }.from", equalTo("reject"))
                .body("reset.find { it.option == 'payloadMismatch' }.to", equalTo("report"));
        assertEquals("report", dev.exactly.consume.ConsumeFixtures.sql(pool,
                "SELECT payload_mismatch FROM exactly.queues WHERE name = $1", q).iterator().next().getString(0));
    }

    @Test
    void aTransactionNamesTheMismatch409WhenReported422WhenRejected() {
        String q = unique("mm-txn");
        push(items(item(q, "t", "1")));
        String other = unique("mm-txn-other");
        String txn = "{\"operations\":[{\"type\":\"push\",\"items\":[" + item(other, "x", "0") + "," + item(q, "t", "2")
                + "]}]}";
        api().body(txn).post("/api/v1/transaction").then().statusCode(409)
                .contentType("application/problem+json")
                .body("type", equalTo("/problems/duplicate")).body("item", equalTo(1))
                .body("payloadMatches", equalTo(false));
        String same = "{\"operations\":[{\"type\":\"push\",\"items\":[" + item(q, "t", "1") + "]}]}";
        api().body(same).post("/api/v1/transaction").then().statusCode(409).body("payloadMatches", equalTo(true));

        mismatch(q, "reject");
        api().body(txn).post("/api/v1/transaction").then().statusCode(422)
                .contentType("application/problem+json")
                .body("type", equalTo("/problems/payload-mismatch")).body("operation", equalTo(0))
                .body("item", equalTo(1)).body("payloadMatches", equalTo(false));
        api().get("/api/v1/queues/" + other).then().statusCode(404);

        // two items of one transaction with one key and two payloads
        String twice = "{\"operations\":[{\"type\":\"push\",\"items\":[" + item(other, "y", "1") + "]},"
                + "{\"type\":\"push\",\"items\":[" + item(other, "y", "2") + "]}]}";
        api().body(twice).post("/api/v1/transaction").then().statusCode(409)
                .body("duplicateOf", equalTo("operations[0].items[0]")).body("payloadMatches", equalTo(false));
    }

    private double mismatches(String entry, String outcome) {
        return registry.find("exactly.payload.mismatch").tag("entry", entry).tag("outcome", outcome).counter().count();
    }

    @Test
    void aKeyRepeatedInsideATransactionWithAnotherPayloadIsA422InARejectQueue() {
        String q = unique("mm-txn-twice");
        mismatch(q, "reject");
        double rejected = mismatches("transaction", "rejected");
        String twice = "{\"operations\":[{\"type\":\"push\",\"items\":[" + item(q, "y", "1") + "]},"
                + "{\"type\":\"push\",\"items\":[" + item(q, "y", "2") + "]}]}";
        api().body(twice).post("/api/v1/transaction").then().statusCode(422)
                .contentType("application/problem+json")
                .body("type", equalTo("/problems/payload-mismatch"))
                .body("operation", equalTo(1)).body("item", equalTo(0))
                .body("duplicateOf", equalTo("operations[0].items[0]"))
                .body("payloadMatches", equalTo(false))
                .body("detail", org.hamcrest.Matchers.containsString("repeats operations[0].items[0] of this transaction"));
        assertEquals(0, longOf(pool, "SELECT count(*) FROM exactly.messages m JOIN exactly.partitions p "
                + "ON p.id = m.partition_id JOIN exactly.queues q ON q.id = p.queue_id WHERE q.name = $1", q),
                "rolled back: nothing written");
        assertEquals(rejected + 1, mismatches("transaction", "rejected"));
        // the same payload twice is a duplicate whatever the option
        String same = "{\"operations\":[{\"type\":\"push\",\"items\":[" + item(q, "z", "1") + "," + item(q, "z", "1")
                + "]}]}";
        api().body(same).post("/api/v1/transaction").then().statusCode(409)
                .body("type", equalTo("/problems/duplicate")).body("payloadMatches", equalTo(true));
    }

    @Test
    void anItemRepeatingOneThisRequestStoresIsNotSaidToBeAlreadyStored() {
        String q = unique("mm-same-request");
        mismatch(q, "reject");
        JsonPath r = push(items(item(q, "k", "1"), item(q, "k", "2")));
        assertEquals(List.of("queued", "rejected"), r.getList("results.status"));
        String detail = r.getString("results[1].problem.detail");
        assertTrue(detail.startsWith("items[1]: transactionId 'k' repeats items[0] of this request, which stores it"),
                detail);
        assertFalse(detail.contains("already stored"), detail);
        assertTrue(detail.contains(r.getString("results[0].messageId")), detail);
        // a stored original is still "already stored"
        JsonPath again = push(items(item(q, "k", "3"), item(q, "n", "1")));
        assertTrue(again.getString("results[0].problem.detail").contains("is already stored in queue " + q),
                again.getString("results[0].problem.detail"));
    }

    @Test
    void mismatchesOutsideWebhooksAreCountedByEntryAndOutcome() {
        String report = unique("mm-count-report");
        String reject = unique("mm-count-reject");
        mismatch(reject, "reject");
        push(items(item(report, "a", "1"), item(reject, "a", "1")));
        double pushReported = mismatches("push", "reported");
        double pushRejected = mismatches("push", "rejected");
        double task = mismatches("task", "reported");
        push(items(item(report, "a", "2"), item(report, "a", "1"), item(reject, "a", "2")));
        assertEquals(pushReported + 1, mismatches("push", "reported"), "only the item whose payload differs");
        assertEquals(pushRejected + 1, mismatches("push", "rejected"));

        String taskQueue = unique("mm-count-task");
        String enqueue = "{\"queue\":\"" + taskQueue + "\",\"id\":\"t-1\",\"type\":\"x\",\"data\":";
        api().body(enqueue + "1}").post("/api/v1/tasks").then().statusCode(200).body("status", equalTo("enqueued"));
        api().body(enqueue + "1}").post("/api/v1/tasks").then().statusCode(200).body("payloadMatches", equalTo(true));
        api().body(enqueue + "2}").post("/api/v1/tasks").then().statusCode(200).body("payloadMatches", equalTo(false));
        assertEquals(task + 1, mismatches("task", "reported"));

        String text = io.restassured.RestAssured.given().get("/q/metrics").then().statusCode(200).extract().asString();
        for (String entry : List.of("push", "transaction", "task")) {
            for (String outcome : List.of("reported", "rejected")) {
                assertTrue(text.contains("exactly_payload_mismatch_total{entry=\"" + entry + "\",outcome=\"" + outcome
                        + "\"}"), entry + " " + outcome);
            }
        }
    }
}
