package dev.exactly.task;

import static dev.exactly.task.TaskTesting.claim;
import static dev.exactly.task.TaskTesting.complete;
import static dev.exactly.task.TaskTesting.enqueue;
import static dev.exactly.task.TaskTesting.freshQueue;
import static dev.exactly.testing.Api.api;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.Db;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import java.time.Duration;
import java.time.OffsetDateTime;
import org.junit.jupiter.api.Test;

/**
 * Extending a task lease (a worker's heartbeat), against the embedded PostgreSQL: only the
 * current, unexpired lease can be extended; an expired or taken-over one is a 409 and changes
 * nothing. Expiry is simulated by setting lease_expires_at back, never by sleeping.
 */
@QuarkusTest
class TaskLeaseExtensionTest {

    private static JsonPath ok(Response r) {
        r.then().statusCode(200);
        return r.jsonPath();
    }

    private static Response extend(String queue, String id, String body) {
        return api().queryParam("queue", queue).body(body).post("/api/v1/tasks/{id}/extend", id);
    }

    private static String claimOne(String queue, String id, int leaseSeconds) {
        ok(enqueue("{\"queue\":\"" + queue + "\",\"id\":\"" + id + "\",\"type\":\"t\",\"data\":{}}"));
        return ok(claim(queue, 1, leaseSeconds)).getString("tasks[0].leaseId");
    }

    private static void expire(String queue, String id) {
        Db.execute("UPDATE exactly.tasks SET lease_expires_at = now() - interval '1 second' WHERE queue = '" + queue
                + "' AND task_id = '" + id + "'");
    }

    @Test
    void anExtendedLeaseOutlivesItsFirstExpiryAndStillCompletes() {
        String q = freshQueue("ext");
        String lease = claimOne(q, "long", 5);

        JsonPath extended = ok(extend(q, "long", "{\"leaseId\":\"" + lease + "\",\"leaseSeconds\":3600}"));

        OffsetDateTime until = OffsetDateTime.parse(extended.getString("leaseExpiresAt"));
        assertTrue(until.isAfter(OffsetDateTime.now().plus(Duration.ofMinutes(50))), "about an hour from now: " + until);
        assertEquals("running", extended.getString("state"));
        assertEquals(1, extended.getInt("attempts"), "an extension is not a delivery");
        // the task is not claimable while the extended lease holds
        assertTrue(ok(claim(q, 1, 60)).getList("tasks").isEmpty());
        complete(q, "long", lease).then().statusCode(200);
    }

    @Test
    void anExpiredLeaseCannotBeExtended() {
        String q = freshQueue("ext-exp");
        String lease = claimOne(q, "late", 60);
        expire(q, "late");

        extend(q, "late", "{\"leaseId\":\"" + lease + "\"}").then().statusCode(409)
                .contentType("application/problem+json").body("type", equalTo("/problems/lease-conflict"));
        // nothing changed: the expired lease is redelivered to the next claim
        assertEquals("late", ok(claim(q, 1, 60)).getString("tasks[0].id"));
    }

    @Test
    void aTakenOverLeaseCannotBeExtendedAndTheNewOneIsUntouched() {
        String q = freshQueue("ext-taken");
        String stale = claimOne(q, "job", 60);
        expire(q, "job");
        JsonPath again = ok(claim(q, 1, 60));
        String current = again.getString("tasks[0].leaseId");
        String expiry = again.getString("tasks[0].leaseExpiresAt");

        extend(q, "job", "{\"leaseId\":\"" + stale + "\",\"leaseSeconds\":3600}").then().statusCode(409);

        JsonPath task = ok(TaskTesting.get(q, "job"));
        assertEquals(OffsetDateTime.parse(expiry).toInstant(), OffsetDateTime.parse(task.getString("leaseExpiresAt")).toInstant());
        ok(extend(q, "job", "{\"leaseId\":\"" + current + "\"}"));
    }

    @Test
    void badExtensionsAreRefusedAndChangeNothing() {
        String q = freshQueue("ext-bad");
        String lease = claimOne(q, "b", 60);
        for (String body : new String[] {"{}", "{\"leaseId\":\"x\"}", "{\"leaseId\":\"" + lease + "\",\"leaseSeconds\":0}",
                "{\"leaseId\":\"" + lease + "\",\"leaseSeconds\":86401}", "{\"leaseId\":\"" + lease + "\",\"until\":1}"}) {
            extend(q, "b", body).then().statusCode(400).contentType("application/problem+json");
        }
        extend(q, "missing", "{\"leaseId\":\"" + lease + "\"}").then().statusCode(404);
        complete(q, "b", lease).then().statusCode(200);
        extend(q, "b", "{\"leaseId\":\"" + lease + "\"}").then().statusCode(409);
    }
}
