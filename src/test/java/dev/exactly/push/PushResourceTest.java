package dev.exactly.push;

import static dev.exactly.testing.Api.api;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The push API's verdicts, end to end against the embedded PostgreSQL. */
@QuarkusTest
class PushResourceTest {

    private static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID();
    }

    private static JsonPath push(String body) {
        return api().body(body).post("/api/v1/push").then().statusCode(200).extract().jsonPath();
    }

    private static String item(String queue, String partition, String txn) {
        return "{\"queue\":\"" + queue + "\"" + (partition == null ? "" : ",\"partition\":\"" + partition + "\"")
                + (txn == null ? "" : ",\"transactionId\":\"" + txn + "\"") + ",\"payload\":{\"n\":1}}";
    }

    private static String items(String... items) {
        return "{\"items\":[" + String.join(",", items) + "]}";
    }

    @Test
    void sameTransactionIdTwiceIsQueuedThenDuplicateWithTheFirstId() {
        String q = unique("q");
        JsonPath first = push(items(item(q, null, "order-42")));
        assertEquals("queued", first.getString("results[0].status"));
        assertEquals("Default", first.getString("results[0].partition"));
        String id = first.getString("results[0].messageId");
        JsonPath second = push(items(item(q, null, "order-42")));
        assertEquals("duplicate", second.getString("results[0].status"));
        assertEquals(id, second.getString("results[0].messageId"));
        assertEquals(0, second.getInt("results[0].index"));
        assertEquals("order-42", second.getString("results[0].transactionId"));
    }

    @Test
    void sameIdInTwoPartitionsIsQueuedInBoth() {
        String q = unique("q");
        JsonPath r = push(items(item(q, "0", "x"), item(q, "1", "x")));
        assertEquals(List.of("queued", "queued"), r.getList("results.status"));
        JsonPath again = push(items(item(q, "0", "x"), item(q, "1", "x")));
        assertEquals(List.of("duplicate", "duplicate"), again.getList("results.status"));
        assertEquals(r.getList("results.messageId"), again.getList("results.messageId"));
    }

    @Test
    void sameIdInAnotherQueueIsQueued() {
        JsonPath r = push(items(item(unique("a"), null, "x"), item(unique("b"), null, "x")));
        assertEquals(List.of("queued", "queued"), r.getList("results.status"));
    }

    @Test
    void threeItemsWithOneIdInOneRequestAreOneQueuedTwoDuplicatesAllWithTheWinnersId() {
        String q = unique("q");
        JsonPath r = push(items(item(q, null, "t"), item(q, null, "t"), item(q, null, "t")));
        assertEquals(List.of("queued", "duplicate", "duplicate"), r.getList("results.status"));
        assertEquals(1, new HashSet<>(r.getList("results.messageId")).size());
        assertEquals(List.of(0, 1, 2), r.getList("results.index"));
    }

    @Test
    void twoItemsOfAStoredIdAreBothDuplicatesOfTheStoredMessage() {
        String q = unique("q");
        String stored = push(items(item(q, null, "s"))).getString("results[0].messageId");
        JsonPath r = push(items(item(q, null, "s"), item(q, null, "s")));
        assertEquals(List.of("duplicate", "duplicate"), r.getList("results.status"));
        assertEquals(List.of(stored, stored), r.getList("results.messageId"));
    }

    @Test
    void itemsWithoutTransactionIdAreAlwaysQueuedWithDistinctIds() {
        String q = unique("q");
        String[] many = new String[100];
        for (int i = 0; i < many.length; i++) {
            many[i] = item(q, null, null);
        }
        JsonPath r = push(items(many));
        List<String> statuses = r.getList("results.status");
        assertEquals(100, statuses.stream().filter("queued"::equals).count());
        Set<String> ids = new HashSet<>(r.getList("results.messageId"));
        assertEquals(100, ids.size());
        // the transactionId of such an item is its own message id
        assertEquals(r.getString("results[5].messageId"), r.getString("results[5].transactionId"));
    }

    @Test
    void windowZeroTurnsTheProbeOff() {
        String q = unique("q");
        api().body("{\"queue\":\"" + q + "\",\"options\":{\"dedupWindowSeconds\":0}}").post("/api/v1/configure")
                .then().statusCode(200).body("options.dedupWindowSeconds", equalTo(0));
        JsonPath a = push(items(item(q, null, "w")));
        JsonPath b = push(items(item(q, null, "w")));
        assertEquals("queued", a.getString("results[0].status"));
        assertEquals("queued", b.getString("results[0].status"));
        // hashes are still written (acks resolve through them)
        assertEquals(2L, dev.exactly.testing.Db.number("SELECT count(*) FROM exactly.txn_hashes h "
                + "JOIN exactly.partitions p ON p.id = h.partition_id JOIN exactly.queues q ON q.id = p.queue_id "
                + "WHERE q.name = '" + q + "'"));
    }

    /** An empty list is refused as bad input (a strict API: nothing to push is a client's mistake). */
    @Test
    void emptyItemsAreRefused() {
        api().body("{\"items\":[]}").post("/api/v1/push").then().statusCode(400).contentType("application/problem+json")
                .body("errors[0].field", org.hamcrest.Matchers.equalTo("items"));
    }

    @Test
    void aDuplicateWritesNothing() {
        String q = unique("q");
        push(items(item(q, "p", "d")));
        long before = dev.exactly.testing.Db.writeFootprint();
        push(items(item(q, "p", "d"), item(q, "p", "d")));
        assertEquals(before, dev.exactly.testing.Db.writeFootprint());
    }

    @Test
    void aStoredMessageReadsBackWithItsExactPayload() {
        String q = unique("q");
        String body = "{\"items\":[{\"queue\":\"" + q + "\",\"transactionId\":\"m\",\"traceId\":\"tr-1\","
                + "\"payload\":{\"b\":1.50,\"a\":[1e400,\"\\u00e9\"]}}]}";
        String id = push(body).getString("results[0].messageId");
        String json = api().get("/api/v1/messages/" + id).then().statusCode(200)
                .body("queue", equalTo(q)).body("partition", equalTo("Default")).body("offset", equalTo(0))
                .body("transactionId", equalTo("m")).body("traceId", equalTo("tr-1"))
                .extract().asString();
        // the payload comes back byte for byte: key order, 1.50 and 1e400 unchanged
        assertEquals(true, json.contains("\"payload\":{\"b\":1.50,\"a\":[1e400,\"\\u00e9\"]}"), json);
    }

    /**
     * A UTF-8 byte order mark before the body is ignored (RFC 8259 section 8.1 lets a parser do so):
     * the push is stored, its payload without the mark, as if it had not been sent.
     */
    @Test
    void aUtf8ByteOrderMarkBeforeTheBodyIsIgnored() {
        String q = unique("q");
        byte[] json = ("{\"items\":[{\"queue\":\"" + q + "\",\"transactionId\":\"bom\",\"payload\":{\"a\":1}}]}")
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] body = new byte[json.length + 3];
        body[0] = (byte) 0xEF;
        body[1] = (byte) 0xBB;
        body[2] = (byte) 0xBF;
        System.arraycopy(json, 0, body, 3, json.length);
        String id = api().body(body).post("/api/v1/push").then().statusCode(200)
                .body("results[0].status", equalTo("queued")).extract().path("results[0].messageId");
        String read = api().get("/api/v1/messages/" + id).then().statusCode(200).extract().asString();
        assertEquals(true, read.contains("\"payload\":{\"a\":1}"), read);
        // the same push without the mark is its duplicate: the mark changed nothing
        api().body(json).post("/api/v1/push").then().statusCode(200).body("results[0].status", equalTo("duplicate"))
                .body("results[0].messageId", equalTo(id)).body("results[0].payloadMatches", equalTo(true));
    }

    @Test
    void anUnknownMessageIs404AndAMalformedId400() {
        api().get("/api/v1/messages/" + UUID.randomUUID()).then().statusCode(404)
                .contentType("application/problem+json");
        api().get("/api/v1/messages/not-a-uuid").then().statusCode(400).contentType("application/problem+json")
                .body("errors[0].field", equalTo("messageId"));
    }
}
