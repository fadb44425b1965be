package dev.exactly.task;

import static dev.exactly.task.TaskTesting.claim;
import static dev.exactly.testing.Api.api;
import static dev.exactly.task.TaskTesting.complete;
import static dev.exactly.task.TaskTesting.enqueue;
import static dev.exactly.task.TaskTesting.fail;
import static dev.exactly.task.TaskTesting.freshQueue;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import org.junit.jupiter.api.Test;

/**
 * A worker that retries a completion or a failure whose answer it did not get (a dropped
 * connection, a 503 at the request's deadline after the commit went through) gets the answer the
 * first attempt would have had, not a lease conflict: the task remembers the lease it was last
 * settled under. A different change under that lease, or any change under another lease, is still
 * refused with 409.
 */
@QuarkusTest
class TaskRetryTest {

    private static JsonPath ok(Response r) {
        r.then().statusCode(200);
        return r.jsonPath();
    }

    /** Enqueues one task and claims it; returns its lease. */
    private static String claimed(String q, String id, int maxRetries) {
        enqueue("{\"queue\":\"" + q + "\",\"id\":\"" + id + "\",\"type\":\"job\",\"data\":{},\"maxRetries\":" + maxRetries
                + ",\"retryDelaySeconds\":0}").then().statusCode(200);
        JsonPath c = ok(claim(q, 1, 300));
        assertEquals(id, c.getString("tasks[0].id"));
        return c.getString("tasks[0].leaseId");
    }

    @Test
    void aRetriedCompletionIsAnsweredAsTheFirstOne() {
        String q = freshQueue("retry-complete");
        String lease = claimed(q, "a", 3);
        JsonPath first = ok(complete(q, "a", lease));
        JsonPath again = ok(complete(q, "a", lease));
        assertEquals("completed", again.getString("state"));
        assertEquals(first.getString("finishedAt"), again.getString("finishedAt"), "nothing changed");
        // the same lease cannot fail what it completed, nor complete it with another result
        fail(q, "a", lease, "late").then().statusCode(409);
        api().queryParam("queue", q).body(java.util.Map.of("leaseId", lease, "result", java.util.Map.of("ok", false)))
                .post("/api/v1/tasks/{id}/complete", "a").then().statusCode(409);
    }

    @Test
    void aRetriedFailureIsAnsweredWithTheTaskAsItNowIs() {
        String q = freshQueue("retry-fail");
        String lease = claimed(q, "b", 3);
        assertEquals("retrying", ok(fail(q, "b", lease, "boom")).getString("state"));
        JsonPath again = ok(fail(q, "b", lease, "boom"));
        assertEquals("retrying", again.getString("state"));
        assertEquals(1, again.getInt("attempts"), "the retry changed nothing");
        // the same lease cannot complete what it failed
        complete(q, "b", lease).then().statusCode(409);

        // claimed again under a new lease: the old lease's failure still stands, its completion does not
        JsonPath c = ok(claim(q, 1, 300));
        String second = c.getString("tasks[0].leaseId");
        assertEquals("running", ok(fail(q, "b", lease, "boom")).getString("state"));
        complete(q, "b", lease).then().statusCode(409);
        assertEquals("completed", ok(complete(q, "b", second)).getString("state"));
        fail(q, "b", lease, "boom").then().statusCode(409);
    }

    @Test
    void theLastFailureRetriedIsAnsweredDead() {
        String q = freshQueue("retry-dead");
        String lease = claimed(q, "c", 0);
        assertEquals("dead", ok(fail(q, "c", lease, "boom")).getString("state"));
        assertEquals("dead", ok(fail(q, "c", lease, "boom")).getString("state"));
    }

    @Test
    void aLeaseNeverGrantedIsStillRefused() {
        String q = freshQueue("retry-foreign");
        String lease = claimed(q, "d", 3);
        String other = "00000000-0000-4000-8000-000000000000";
        complete(q, "d", other).then().statusCode(409);
        fail(q, "d", other, "x").then().statusCode(409);
        ok(complete(q, "d", lease));
        complete(q, "d", other).then().statusCode(409);
    }
}
