package dev.exactly.task;

import static dev.exactly.task.TaskTesting.claim;
import static dev.exactly.task.TaskTesting.complete;
import static dev.exactly.task.TaskTesting.count;
import static dev.exactly.task.TaskTesting.enqueue;
import static dev.exactly.task.TaskTesting.fail;
import static dev.exactly.task.TaskTesting.freshQueue;
import static dev.exactly.task.TaskTesting.get;
import static dev.exactly.testing.Api.api;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Enqueue verdicts over HTTP against the embedded PostgreSQL: id and autoDedupe deduplication. */
@QuarkusTest
class TaskEnqueueTest {

    private static JsonPath ok(io.restassured.response.Response r) {
        r.then().statusCode(200);
        return r.jsonPath();
    }

    private static String task(String queue, String id, String type, String data, boolean autoDedupe) {
        return "{\"queue\":\"" + queue + "\"," + (id == null ? "" : "\"id\":\"" + id + "\",") + "\"type\":\"" + type
                + "\",\"data\":" + data + ",\"autoDedupe\":" + autoDedupe + "}";
    }

    @Test
    void referenceExampleTwoDigestsWithDifferentIdsAreOneTask() {
        String q = freshQueue("digest");
        JsonPath first = ok(enqueue(task(q, "digest-1", "send_digest", "{\"user\":\"john\",\"period\":\"daily\"}", true)));
        assertEquals("enqueued", first.getString("status"));
        assertEquals("digest-1", first.getString("taskId"));
        assertNull(first.get("duplicateOf"));

        JsonPath second = ok(enqueue(task(q, "digest-2", "send_digest", "{\"user\":\"john\",\"period\":\"daily\"}", true)));
        assertEquals("duplicate", second.getString("status"));
        assertEquals("digest-1", second.getString("taskId"));
        assertEquals("digest-1", second.getString("duplicateOf"));
        assertEquals("autoDedupe", second.getString("matchedOn"));

        assertEquals(1, count(q));
        get(q, "digest-2").then().statusCode(404);
        JsonPath t = ok(get(q, "digest-1"));
        assertEquals("queued", t.getString("state"));
        assertEquals("john", t.getString("data.user"));
        assertEquals(true, t.getBoolean("autoDedupe"));
        assertEquals(64, t.getString("dedupeKey").length());
    }

    @Test
    void keyOrderAndWhitespaceVariantsCollideArrayOrderDoesNot() {
        String q = freshQueue("variants");
        String winner = ok(enqueue(task(q, null, "report", "{\"a\":1,\"b\":[1,2,3],\"c\":{\"x\":true,\"y\":null}}", true)))
                .getString("taskId");
        for (String variant : List.of(
                "{\"c\":{\"y\":null,\"x\":true},\"b\":[1,2,3],\"a\":1}",
                "{ \"b\" : [ 1 , 2 , 3 ] ,\n\t\"a\" : 1 , \"c\" : { \"x\" : true , \"y\" : null } }",
                "{\"a\":1.0,\"b\":[1e0,2,3],\"c\":{\"x\":true,\"y\":null}}")) {
            JsonPath r = ok(enqueue(task(q, null, "report", variant, true)));
            assertEquals("duplicate", r.getString("status"), variant);
            assertEquals(winner, r.getString("taskId"), variant);
        }
        JsonPath reordered = ok(enqueue(task(q, null, "report", "{\"a\":1,\"b\":[3,2,1],\"c\":{\"x\":true,\"y\":null}}", true)));
        assertEquals("enqueued", reordered.getString("status"));
        assertNotEquals(winner, reordered.getString("taskId"));
        assertEquals(2, count(q));
    }

    @Test
    void framingKeepsTypeAndDataApart() {
        String q = freshQueue("framing");
        assertEquals("enqueued", ok(enqueue(task(q, null, "ab", "\"c\"", true))).getString("status"));
        assertEquals("enqueued", ok(enqueue(task(q, null, "a", "\"bc\"", true))).getString("status"));
        // type + canonical data concatenated would be "job123" for both
        assertEquals("enqueued", ok(enqueue(task(q, null, "job1", "23", true))).getString("status"));
        assertEquals("enqueued", ok(enqueue(task(q, null, "job12", "3", true))).getString("status"));
        assertEquals(4, count(q));
    }

    @Test
    void onlyAutoDedupeTasksTakePartAndTheQueueScopesTheKey() {
        String q = freshQueue("optin");
        String data = "{\"user\":\"ann\"}";
        assertEquals("enqueued", ok(enqueue(task(q, null, "mail", data, false))).getString("status"));
        assertEquals("enqueued", ok(enqueue(task(q, null, "mail", data, false))).getString("status"));
        String keyed = ok(enqueue(task(q, null, "mail", data, true))).getString("taskId");
        JsonPath dup = ok(enqueue(task(q, null, "mail", data, true)));
        assertEquals("duplicate", dup.getString("status"));
        assertEquals(keyed, dup.getString("taskId"));
        assertEquals("enqueued", ok(enqueue(task(freshQueue("other"), null, "mail", data, true))).getString("status"));
        assertEquals(3, count(q));
    }

    @Test
    void aClientIdIsUniquePerQueueWhileTheTaskExists() {
        String q = freshQueue("ids");
        ok(enqueue(task(q, "job-7", "a", "1", false)));
        JsonPath again = ok(enqueue(task(q, "job-7", "b", "2", false)));
        assertEquals("duplicate", again.getString("status"));
        assertEquals("job-7", again.getString("taskId"));
        assertEquals("id", again.getString("matchedOn"));
        // another queue: its own id space
        assertEquals("enqueued", ok(enqueue(task(freshQueue("ids"), "job-7", "a", "1", false))).getString("status"));

        // still a duplicate once completed (the task exists) ...
        String lease = ok(claim(q, 1, 300)).getString("tasks[0].leaseId");
        complete(q, "job-7", lease).then().statusCode(200);
        assertEquals("duplicate", ok(enqueue(task(q, "job-7", "a", "1", false))).getString("status"));
        // ... and free again once deleted
        api().queryParam("queue", q).delete("/api/v1/tasks/{id}", "job-7").then().statusCode(204);
        assertEquals("enqueued", ok(enqueue(task(q, "job-7", "a", "1", false))).getString("status"));
    }

    @Test
    void aRepeatedIdSaysWhetherTheTypeAndDataMatched() {
        String q = freshQueue("mismatch");
        JsonPath first = ok(enqueue(task(q, "job-1", "resize", "{\"img\":1}", false)));
        assertNull(first.get("payloadMatches"), "an enqueued task has nothing to compare");
        JsonPath same = ok(enqueue(task(q, "job-1", "resize", "{\"img\":1}", false)));
        assertEquals("duplicate", same.getString("status"));
        assertEquals(Boolean.TRUE, same.get("payloadMatches"));
        JsonPath otherData = ok(enqueue(task(q, "job-1", "resize", "{\"img\":2}", false)));
        assertEquals("duplicate", otherData.getString("status"));
        assertEquals("id", otherData.getString("matchedOn"));
        assertEquals(Boolean.FALSE, otherData.get("payloadMatches"));
        assertEquals(Boolean.FALSE, ok(enqueue(task(q, "job-1", "crop", "{\"img\":1}", false))).get("payloadMatches"),
                "another type");
        // type and data are framed apart: "re" + "size..." is not "resize" + ...
        assertEquals(Boolean.FALSE, ok(enqueue(task(q, "job-1", "resiz", "{\"img\":1}", false))).get("payloadMatches"));
        // in a batch too, per task
        JsonPath batch = ok(api().body("{\"tasks\":[" + task(q, "job-1", "resize", "{\"img\":1}", false) + ","
                + task(q, "job-1", "resize", "[]", false) + "]}").post("/api/v1/tasks/batch"));
        assertEquals(List.of(true, false), batch.getList("results.payloadMatches"));
        // the stored task is the first one, unchanged
        get(q, "job-1").then().statusCode(200).body("type", equalTo("resize"))
                .body("data.img", equalTo(1));
        assertEquals(1, count(q));
    }

    @Test
    void anAutoDedupeMatchCarriesNoPayloadComparison() {
        String q = freshQueue("mismatch-auto");
        ok(enqueue(task(q, "a", "send", "{\"x\":1,\"y\":2}", true)));
        JsonPath twin = ok(enqueue(task(q, "b", "send", "{\"y\":2,\"x\":1}", true)));
        assertEquals("autoDedupe", twin.getString("matchedOn"));
        assertNull(twin.get("payloadMatches"), "the key itself is the payload's canonical form");
    }

    @Test
    void afterCompletionTheSamePayloadEnqueuesAgain() {
        String q = freshQueue("done");
        String data = "{\"user\":\"john\",\"period\":\"daily\"}";
        String first = ok(enqueue(task(q, null, "send_digest", data, true))).getString("taskId");
        JsonPath c = ok(claim(q, 1, 300));
        assertEquals(first, c.getString("tasks[0].id"));
        // running still counts as pending
        assertEquals("duplicate", ok(enqueue(task(q, null, "send_digest", data, true))).getString("status"));
        complete(q, first, c.getString("tasks[0].leaseId")).then().statusCode(200).body("state", equalTo("completed"));

        JsonPath again = ok(enqueue(task(q, null, "send_digest", data, true)));
        assertEquals("enqueued", again.getString("status"));
        assertNotEquals(first, again.getString("taskId"));
        assertEquals(2, count(q));
    }

    @Test
    void afterDeadLetteringTheSamePayloadEnqueuesAgain() {
        String q = freshQueue("dead");
        String body = "{\"queue\":\"" + q + "\",\"type\":\"t\",\"data\":[1],\"autoDedupe\":true,\"maxRetries\":1}";
        String first = ok(enqueue(body)).getString("taskId");
        for (int attempt = 1; attempt <= 2; attempt++) {
            JsonPath c = ok(claim(q, 1, 300));
            assertEquals(first, c.getString("tasks[0].id"));
            assertEquals(attempt, c.getInt("tasks[0].attempts"));
            // waiting to retry still counts as pending
            assertEquals("duplicate", ok(enqueue(body)).getString("status"));
            String state = ok(fail(q, first, c.getString("tasks[0].leaseId"), "boom " + attempt)).getString("state");
            assertEquals(attempt == 1 ? "retrying" : "dead", state);
        }
        JsonPath dead = ok(get(q, first));
        assertEquals("dead", dead.getString("state"));
        assertEquals("boom 2", dead.getString("lastError"));
        assertEquals(2, dead.getInt("attempts"));

        JsonPath again = ok(enqueue(body));
        assertEquals("enqueued", again.getString("status"));
        assertNotEquals(first, again.getString("taskId"));
    }

    @Test
    void afterDeletionTheSamePayloadEnqueuesAgain() {
        String q = freshQueue("deleted");
        String body = task(q, null, "t", "{\"k\":\"v\"}", true);
        String first = ok(enqueue(body)).getString("taskId");
        assertEquals("duplicate", ok(enqueue(body)).getString("status"));
        api().queryParam("queue", q).delete("/api/v1/tasks/{id}", first).then().statusCode(204);
        get(q, first).then().statusCode(404);
        JsonPath again = ok(enqueue(body));
        assertEquals("enqueued", again.getString("status"));
        assertNotEquals(first, again.getString("taskId"));
    }

    @Test
    void batchAnswersPerTaskAndSeesItsOwnEarlierTasks() {
        String q = freshQueue("batch");
        String body = "{\"tasks\":["
                + task(q, "b-1", "t", "{\"x\":1}", true) + ","
                + task(q, "b-2", "t", "{ \"x\" : 1 }", true) + ","
                + task(q, "b-1", "u", "2", false) + ","
                + task(q, null, "t", "{\"x\":2}", true) + "]}";
        JsonPath r = ok(api().body(body).post("/api/v1/tasks/batch"));
        assertEquals(List.of(0, 1, 2, 3), r.getList("results.index"));
        assertEquals(List.of("enqueued", "duplicate", "duplicate", "enqueued"), r.getList("results.status"));
        assertEquals("b-1", r.getString("results[1].taskId"));
        assertEquals("autoDedupe", r.getString("results[1].matchedOn"));
        assertEquals("id", r.getString("results[2].matchedOn"));
        assertEquals(2, count(q));
        // an empty batch is refused as bad input
        api().body("{\"tasks\":[]}").post("/api/v1/tasks/batch").then().statusCode(400)
                .contentType("application/problem+json").body("errors[0].field", org.hamcrest.Matchers.equalTo("tasks"));
    }

    @Test
    void defaultsAreFilledIn() {
        String id = "defaults-" + UUID.randomUUID();
        ok(enqueue("{\"id\":\"" + id + "\",\"type\":\"t\",\"data\":null}"));
        JsonPath t = ok(api().get("/api/v1/tasks/{id}", id));
        assertEquals("default", t.getString("queue"));
        assertEquals(3, t.getInt("maxRetries"));
        assertEquals(0, t.getInt("retryDelaySeconds"));
        assertEquals(0, t.getInt("priority"));
        assertEquals(0, t.getInt("attempts"));
        assertEquals(false, t.getBoolean("autoDedupe"));
        assertTrue(t.getMap("").containsKey("data"));
        api().delete("/api/v1/tasks/{id}", id).then().statusCode(204);

        String generated = ok(enqueue("{\"queue\":\"" + freshQueue("gen") + "\",\"type\":\"t\",\"data\":1}")).getString("taskId");
        assertEquals(7, UUID.fromString(generated).version());
    }

    /**
     * A number beyond the double range cannot take RFC 8785's canonical form: the refusal says so
     * (a new-user check got the library's "NaN/Infinity are not permitted" for 1e400), and nothing
     * is enqueued.
     */
    @Test
    void aNumberBeyondTheDoubleRangeIsRefusedInWordsAboutTheNumber() {
        String q = freshQueue("huge");
        enqueue(task(q, null, "t", "{\"n\":1e400}", true)).then().statusCode(400)
                .contentType("application/problem+json")
                .body("errors[0].field", equalTo("data"))
                .body("errors[0].message", containsString("IEEE 754 double"))
                .body("errors[0].message", not(containsString("NaN")));
        assertEquals(0, count(q));
    }
}
