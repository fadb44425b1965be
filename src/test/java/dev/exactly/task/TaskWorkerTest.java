package dev.exactly.task;

import static dev.exactly.task.TaskTesting.claim;
import static dev.exactly.task.TaskTesting.complete;
import static dev.exactly.task.TaskTesting.enqueue;
import static dev.exactly.task.TaskTesting.fail;
import static dev.exactly.task.TaskTesting.freshQueue;
import static dev.exactly.task.TaskTesting.get;
import static dev.exactly.testing.Api.api;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Workers over HTTP against the embedded PostgreSQL: claim order, leases, retries, lease guards. */
@QuarkusTest
class TaskWorkerTest {

    /** Upper bound of waiting for a lease to expire (a failure bound, not a speed assertion). */
    private static final long PATIENCE_MS = 30_000;

    private static JsonPath ok(io.restassured.response.Response r) {
        r.then().statusCode(200);
        return r.jsonPath();
    }

    private static void add(String queue, String id, String extra) {
        ok(enqueue("{\"queue\":\"" + queue + "\",\"id\":\"" + id + "\",\"type\":\"t\",\"data\":{}" + extra + "}"));
    }

    /** Claims until the task comes back (a lease expired); fails after PATIENCE_MS. */
    private static JsonPath claimUntilRedelivered(String queue, int leaseSeconds) throws InterruptedException {
        long deadline = System.currentTimeMillis() + PATIENCE_MS;
        while (System.currentTimeMillis() < deadline) {
            JsonPath c = ok(claim(queue, 1, leaseSeconds));
            if (!c.getList("tasks").isEmpty()) {
                return c;
            }
            Thread.sleep(200);
        }
        fail("the task was not redelivered within " + PATIENCE_MS + " ms");
        return null;
    }

    @Test
    void claimOrderIsPriorityThenRunAtThenEnqueueOrder() {
        String q = freshQueue("order");
        add(q, "a", "");
        add(q, "b", ",\"priority\":5");
        add(q, "c", ",\"runAt\":\"2020-01-01T00:00:00Z\"");
        add(q, "d", ",\"runAt\":\"" + OffsetDateTime.now().plusHours(1) + "\"");
        add(q, "e", "");
        add(q, "f", ",\"priority\":-1,\"runAt\":\"2000-01-01T00:00:00Z\"");
        assertEquals("scheduled", ok(get(q, "d")).getString("state"));

        JsonPath c = ok(claim(q, 10, 300));
        assertEquals(List.of("b", "c", "a", "e", "f"), c.getList("tasks.id"));
        assertEquals(List.of(1, 1, 1, 1, 1), c.getList("tasks.attempts"));
        assertEquals("running", ok(get(q, "a")).getString("state"));
        assertEquals(List.of(), ok(claim(q, 10, 300)).getList("tasks"));
        assertEquals("scheduled", ok(get(q, "d")).getString("state"));
    }

    @Test
    void claimFiltersByTypeAndRespectsTheLimit() {
        String q = freshQueue("types");
        for (int i = 0; i < 3; i++) {
            ok(enqueue("{\"queue\":\"" + q + "\",\"id\":\"x" + i + "\",\"type\":\"x\",\"data\":" + i + "}"));
            ok(enqueue("{\"queue\":\"" + q + "\",\"id\":\"y" + i + "\",\"type\":\"y\",\"data\":" + i + "}"));
        }
        JsonPath c = ok(api().body(Map.of("queue", q, "types", List.of("y"), "limit", 2)).post("/api/v1/tasks/claim"));
        assertEquals(List.of("y0", "y1"), c.getList("tasks.id"));
        assertEquals(List.of("y", "y"), c.getList("tasks.type"));
        assertEquals(List.of(0, 1), c.getList("tasks.data"));
    }

    @Test
    void failWaitsTheRetryDelay() {
        String q = freshQueue("retry");
        add(q, "r", ",\"maxRetries\":2,\"retryDelaySeconds\":3600");
        String lease = ok(claim(q, 1, 300)).getString("tasks[0].leaseId");
        // a lease id is a version 4 UUID of RFC 9562's variant (section 5.4), as clients that check UUIDs expect
        java.util.UUID id = java.util.UUID.fromString(lease);
        assertEquals(4, id.version(), lease);
        assertEquals(2, id.variant(), lease);
        JsonPath failed = ok(fail(q, "r", lease, "first"));
        assertEquals("retrying", failed.getString("state"));
        assertEquals("first", failed.getString("lastError"));
        assertTrue(OffsetDateTime.parse(failed.getString("runAt")).isAfter(OffsetDateTime.now().plusMinutes(50)));
        // not claimable during its retry delay
        assertEquals(List.of(), ok(claim(q, 1, 300)).getList("tasks"));
    }

    @Test
    void maxRetriesBoundsTheDeliveries() {
        String q = freshQueue("bound");
        add(q, "r", ",\"maxRetries\":2");
        for (int attempt = 1; attempt <= 3; attempt++) {
            JsonPath c = ok(claim(q, 1, 300));
            assertEquals(attempt, c.getInt("tasks[0].attempts"));
            String state = ok(fail(q, "r", c.getString("tasks[0].leaseId"), "e" + attempt)).getString("state");
            assertEquals(attempt < 3 ? "retrying" : "dead", state);
        }
        assertEquals(List.of(), ok(claim(q, 1, 300)).getList("tasks"));
        JsonPath dead = ok(get(q, "r"));
        assertEquals("dead", dead.getString("state"));
        assertEquals(3, dead.getInt("attempts"));
        assertTrue(dead.getString("finishedAt") != null);
    }

    @Test
    void completeStoresTheResult() {
        String q = freshQueue("result");
        add(q, "c", "");
        String lease = ok(claim(q, 1, 300)).getString("tasks[0].leaseId");
        JsonPath done = ok(api().queryParam("queue", q)
                .body("{\"leaseId\":\"" + lease + "\",\"result\":{\"sent\":3,\"exact\":1.50}}")
                .post("/api/v1/tasks/{id}/complete", "c"));
        assertEquals("completed", done.getString("state"));
        String raw = get(q, "c").then().statusCode(200).extract().asString();
        assertTrue(raw.contains("\"result\":{\"sent\":3,\"exact\":1.50}"), raw);
        // a second completion with another result is refused: the task is no longer running (the
        // same completion again is a retry, answered as the first: TaskRetryTest)
        complete(q, "c", lease).then().statusCode(409).contentType("application/problem+json");
    }

    @Test
    void leaseExpiryRedeliversAndTheStaleWorkerIsRefused() throws InterruptedException {
        String q = freshQueue("expiry");
        add(q, "job", "");
        JsonPath first = ok(claim(q, 1, 1));
        String stale = first.getString("tasks[0].leaseId");
        assertEquals(1, first.getInt("tasks[0].attempts"));

        JsonPath again = claimUntilRedelivered(q, 300);
        assertEquals("job", again.getString("tasks[0].id"));
        assertEquals(2, again.getInt("tasks[0].attempts"));
        String current = again.getString("tasks[0].leaseId");
        assertNotEquals(stale, current);
        assertEquals("lease expired", ok(get(q, "job")).getString("lastError"));

        // the stale worker can neither complete, fail nor delete the re-claimed task
        complete(q, "job", stale).then().statusCode(409).body("type", org.hamcrest.Matchers.equalTo("/problems/lease-conflict"));
        fail(q, "job", stale, "late").then().statusCode(409);
        api().queryParam("queue", q).queryParam("leaseId", stale).delete("/api/v1/tasks/{id}", "job").then().statusCode(409);
        api().queryParam("queue", q).delete("/api/v1/tasks/{id}", "job").then().statusCode(409);
        JsonPath still = ok(get(q, "job"));
        assertEquals("running", still.getString("state"));
        assertEquals(2, still.getInt("attempts"));

        assertEquals("completed", ok(complete(q, "job", current)).getString("state"));
    }

    @Test
    void anExpiredLeaseCannotCompleteEvenBeforeRedelivery() throws InterruptedException {
        String q = freshQueue("expired");
        add(q, "job", "");
        String lease = ok(claim(q, 1, 1)).getString("tasks[0].leaseId");
        Thread.sleep(1500);
        complete(q, "job", lease).then().statusCode(409);
        assertEquals("running", ok(get(q, "job")).getString("state"));
        // the lease is no longer held: a producer may delete it without one
        api().queryParam("queue", q).delete("/api/v1/tasks/{id}", "job").then().statusCode(204);
    }

    @Test
    void anExpiredLastDeliveryIsDeadAndFreesItsKey() throws InterruptedException {
        String q = freshQueue("expdead");
        String body = "{\"queue\":\"" + q + "\",\"id\":\"once\",\"type\":\"t\",\"data\":{\"n\":1},\"autoDedupe\":true,\"maxRetries\":0}";
        ok(enqueue(body));
        ok(claim(q, 1, 1));
        long deadline = System.currentTimeMillis() + PATIENCE_MS;
        String state = "running";
        while (!state.equals("dead") && System.currentTimeMillis() < deadline) {
            Thread.sleep(200);
            assertEquals(List.of(), ok(claim(q, 1, 300)).getList("tasks"));
            state = ok(get(q, "once")).getString("state");
        }
        assertEquals("dead", state);
        assertEquals("lease expired", ok(get(q, "once")).getString("lastError"));
        JsonPath again = ok(enqueue(body.replace("\"once\"", "\"twice\"")));
        assertEquals("enqueued", again.getString("status"));
    }

    @Test
    void deletingARunningTaskNeedsItsLease() {
        String q = freshQueue("del");
        add(q, "d", "");
        String lease = ok(claim(q, 1, 300)).getString("tasks[0].leaseId");
        api().queryParam("queue", q).delete("/api/v1/tasks/{id}", "d").then().statusCode(409)
                .contentType("application/problem+json");
        // a lease id never granted: the detail does not claim that a lease expired
        api().queryParam("queue", q).queryParam("leaseId", "00000000-0000-0000-0000-000000000000")
                .delete("/api/v1/tasks/{id}", "d").then().statusCode(409)
                .body("detail", org.hamcrest.Matchers.containsString("or one never granted"));
        api().queryParam("queue", q).queryParam("leaseId", lease).delete("/api/v1/tasks/{id}", "d").then().statusCode(204);
        get(q, "d").then().statusCode(404);
        api().queryParam("queue", q).delete("/api/v1/tasks/{id}", "d").then().statusCode(404);
        complete(q, "d", lease).then().statusCode(404);
    }
}
