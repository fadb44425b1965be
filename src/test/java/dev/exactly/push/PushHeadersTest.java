package dev.exactly.push;

import static dev.exactly.testing.Api.api;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.exactly.testing.Db;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.ValidatableResponse;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A push item's {@code headers}: stored in the message's headers column, returned by pop and by a
 * read by id as sent, refused (400, nothing written) when they break a rule, unchanged by a
 * duplicate; also as a transaction's push operation.
 */
@QuarkusTest
class PushHeadersTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Names of every allowed character, values with escapes, non-ASCII, an emoji and an empty one. */
    private static final String HEADERS = "{\"tenant\":\"acme\",\"Content.Kind_v-2\":\"a \\\"quoted\\\" \\\\ line\\nbreak\","
            + "\"city\":\"Z\\u00fcrich \u00e9t\u00e9 \ud83d\ude00\",\"empty\":\"\",\"X-Exactly\":\"not the reserved prefix\"}";

    private static String queue(String prefix) {
        return prefix + "-" + UUID.randomUUID();
    }

    private static String item(String queue, String txn, String headers) {
        return "{\"queue\":\"" + queue + "\",\"transactionId\":\"" + txn + "\",\"payload\":{\"n\":1}"
                + (headers == null ? "" : ",\"headers\":" + headers) + "}";
    }

    private static JsonPath push(String item) {
        return api().body("{\"items\":[" + item + "]}").post("/api/v1/push").then().statusCode(200).extract().jsonPath();
    }

    private static String pop(String queue) {
        return api().body("{\"queue\":\"" + queue + "\",\"batch\":10}").post("/api/v1/pop").then().statusCode(200)
                .extract().asString();
    }

    private static String storedHeaders(String messageId) {
        try (var c = dev.exactly.testing.AppDatabase.connect(); var s = c.createStatement();
             var rs = s.executeQuery("SELECT headers::text FROM exactly.messages WHERE message_id = '" + messageId + "'")) {
            rs.next();
            return rs.getString(1);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static JsonNode tree(String json) throws Exception {
        return JSON.readTree(json);
    }

    @Test
    void headersAreStoredAndComeBackFromPopAndReadByIdAsSent() throws Exception {
        String q = queue("headers");
        String id = push(item(q, "h-1", HEADERS)).getString("results[0].messageId");
        assertEquals(tree(HEADERS), tree(storedHeaders(id)), "the column holds the object sent");

        JsonNode popped = tree(pop(q)).path("messages").get(0);
        assertEquals(id, popped.path("messageId").asText());
        assertEquals(tree(HEADERS), popped.path("headers"), "pop returns them as sent");
        // the answer carries the column's own text: the same bytes jsonb hands out
        assertEquals(tree(storedHeaders(id)).toString(), popped.path("headers").toString());

        JsonNode read = tree(api().get("/api/v1/messages/" + id).then().statusCode(200).extract().asString());
        assertEquals(tree(HEADERS), read.path("headers"), "what the console shows: the read by id");
    }

    @Test
    void anItemWithoutHeadersOrWithAnEmptyObjectOrNullStoresNone() {
        String q = queue("no-headers");
        assertNull(storedHeaders(push(item(q, "n-1", null)).getString("results[0].messageId")));
        assertNull(storedHeaders(push(item(q, "n-2", "{}")).getString("results[0].messageId")));
        assertNull(storedHeaders(push(item(q, "n-3", "null")).getString("results[0].messageId")));
    }

    @Test
    void aDuplicatesHeadersAreNotStored() throws Exception {
        String q = queue("dup-headers");
        String id = push(item(q, "d-1", "{\"v\":\"first\"}")).getString("results[0].messageId");
        JsonPath again = push(item(q, "d-1", "{\"v\":\"second\",\"w\":\"x\"}"));
        assertEquals("duplicate", again.getString("results[0].status"));
        assertEquals(id, again.getString("results[0].messageId"));
        assertEquals(true, again.getBoolean("results[0].payloadMatches"), "headers take no part in the comparison");
        assertEquals(tree("{\"v\":\"first\"}"), tree(storedHeaders(id)));
        assertEquals(1, Db.number("SELECT count(*) FROM exactly.messages m JOIN exactly.partitions p ON p.id = m.partition_id "
                + "JOIN exactly.queues qu ON qu.id = p.queue_id WHERE qu.name = '" + q + "'"));
    }

    /** Each refusal is a 400 naming the field, and writes nothing. */
    private static ValidatableResponse refused(String body, String path, Integer index, String field) {
        long before = Db.writeFootprint();
        ValidatableResponse r = api().body(body).post(path).then().statusCode(400)
                .contentType("application/problem+json").body("type", equalTo("/problems/invalid-request"))
                .body("errors[0].field", equalTo(field));
        if (index != null) {
            r.body("errors[0].index", equalTo(index));
        }
        assertEquals(before, Db.writeFootprint(), "a refused request wrote rows: " + body);
        return r;
    }

    private static ValidatableResponse refused(String headers, String field) {
        return refused("{\"items\":[" + item("refused", "r-1", "{\"ok\":\"1\"}") + "," + item("refused", "r-2", headers) + "]}",
                "/api/v1/push", 1, field);
    }

    @Test
    void headersThatAreNotAnObjectOfStringsAreRefused() {
        for (String notAnObject : new String[] {"[]", "\"a: b\"", "1", "true"}) {
            refused(notAnObject, "headers").body("errors[0].message", equalTo("must be a JSON object"));
        }
        for (String value : new String[] {"1", "true", "null", "{}", "[\"a\"]"}) {
            refused("{\"x\":" + value + "}", "headers.x").body("errors[0].message", equalTo("must be a string"));
        }
        refused("{\"x\":\"1\",\"x\":\"2\"}", "headers.x").body("detail", containsString("Duplicate field 'x'"));
    }

    @Test
    void namesAreCountedAndChecked() {
        String many = IntStream.range(0, 33).mapToObj(i -> "\"h" + i + "\":\"v\"").collect(Collectors.joining(",", "{", "}"));
        refused(many, "headers").body("errors[0].message", containsString("at most 32 names"));
        String most = IntStream.range(0, 32).mapToObj(i -> "\"h" + i + "\":\"v\"").collect(Collectors.joining(",", "{", "}"));
        push(item(queue("most"), "m-1", most));

        for (String bad : new String[] {"", "a b", "a:b", "a/b", "\u00e9", "n".repeat(65), "\\u0000"}) {
            refused("{\"" + bad + "\":\"v\"}", "headers").body("errors[0].message", containsString("a name is 1 to 64 characters"));
        }
        push(item(queue("longest"), "l-1", "{\"" + "n".repeat(64) + "\":\"v\"}"));

        for (String reserved : new String[] {"x-exactly-dead-letter", "X-Exactly-Redrive", "x-exactly-"}) {
            refused("{\"" + reserved + "\":\"v\"}", "headers." + reserved)
                    .body("errors[0].message", containsString("the service writes itself"));
        }
    }

    @Test
    void valuesAndTheTotalAreBounded() {
        refused("{\"x\":\"" + "\u00e9".repeat(513) + "\"}", "headers.x") // 1026 UTF-8 bytes
                .body("errors[0].message", equalTo("must be at most 1024 UTF-8 bytes"));
        push(item(queue("longest-value"), "v-1", "{\"x\":\"" + "\u00e9".repeat(512) + "\"}"));
        refused("{\"x\":\"a\\u0000b\"}", "headers.x").body("errors[0].message", containsString("NUL"));
        refused("{\"x\":\"\\ud800\"}", "headers.x").body("errors[0].message", containsString("lone surrogate"));

        // eight values of 1024 bytes and their one-character names: 8200 bytes
        String big = IntStream.range(0, 8).mapToObj(i -> "\"" + (char) ('a' + i) + "\":\"" + "v".repeat(1024) + "\"")
                .collect(Collectors.joining(",", "{", "}"));
        refused(big, "headers").body("errors[0].message", containsString("at most 8192 UTF-8 bytes"));
    }

    @Test
    void anUnknownItemFieldIsStillRefused() {
        refused("{\"items\":[{\"queue\":\"refused\",\"payload\":1,\"header\":{\"a\":\"b\"}}]}", "/api/v1/push", 0, "header")
                .body("errors[0].message", equalTo("unknown field"));
    }

    @Test
    void aTransactionsPushOperationKeepsHeadersAndNamesTheirErrorsByPath() throws Exception {
        String q = queue("txn-headers");
        JsonPath r = api().body("{\"operations\":[{\"type\":\"push\",\"items\":[" + item(q, "t-1", "{\"tenant\":\"acme\"}") + "]}]}")
                .post("/api/v1/transaction").then().statusCode(200).extract().jsonPath();
        String id = r.getString("results[0].items[0].messageId");
        assertEquals(tree("{\"tenant\":\"acme\"}"), tree(storedHeaders(id)));
        assertEquals(tree("{\"tenant\":\"acme\"}"), tree(pop(q)).path("messages").get(0).path("headers"));

        refused("{\"operations\":[{\"type\":\"push\",\"items\":[" + item(q, "t-2", "{\"x\":7}") + "]}]}",
                "/api/v1/transaction", null, "operations[0].items[0].headers.x");
        refused("{\"operations\":[{\"type\":\"push\",\"items\":[" + item(q, "t-2", "{\"a b\":\"7\"}") + "]}]}",
                "/api/v1/transaction", null, "operations[0].items[0].headers");
    }
}
