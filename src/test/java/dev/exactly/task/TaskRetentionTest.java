package dev.exactly.task;

import static dev.exactly.task.TaskTesting.claim;
import static dev.exactly.task.TaskTesting.complete;
import static dev.exactly.task.TaskTesting.count;
import static dev.exactly.task.TaskTesting.enqueue;
import static dev.exactly.task.TaskTesting.fail;
import static dev.exactly.task.TaskTesting.freshQueue;
import static dev.exactly.testing.Api.api;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.Db;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Task retention (the maintenance job deletes finished tasks past their queue's retention, in
 * bounded steps) and the paged listing by state, against the embedded PostgreSQL. Time is moved
 * by setting finished_at back, never by sleeping. The test profile keeps finished tasks of
 * "keep-forever" queues forever and those of "kept-long" ones for ten days
 * (src/test/resources/META-INF/microprofile-config.properties).
 */
@QuarkusTest
class TaskRetentionTest {

    private static JsonPath ok(io.restassured.response.Response r) {
        r.then().statusCode(200);
        return r.jsonPath();
    }

    private static void add(String queue, String id) {
        ok(enqueue("{\"queue\":\"" + queue + "\",\"id\":\"" + id + "\",\"type\":\"t\",\"data\":{\"n\":\"" + id + "\"}}"));
    }

    /** Claims the queue's next task and completes it (or fails it for good when maxRetries is 0). */
    private static void finish(String queue, boolean complete) {
        JsonPath c = ok(claim(queue, 1, 60));
        String id = c.getString("tasks[0].id");
        String lease = c.getString("tasks[0].leaseId");
        if (complete) {
            complete(queue, id, lease).then().statusCode(200);
        } else {
            fail(queue, id, lease, "boom").then().statusCode(200);
        }
    }

    private static void finishedAgo(String queue, String id, String interval) {
        Db.execute("UPDATE exactly.tasks SET finished_at = now() - interval '" + interval + "' WHERE queue = '"
                + queue + "' AND task_id = '" + id + "'");
    }

    private static JsonPath maintenance() {
        return ok(api().post("/api/v1/admin/maintenance"));
    }

    @Test
    void finishedTasksPastRetentionArePurgedAndTheirIdIsFreeAgain() {
        String q = freshQueue("ret");
        for (String id : List.of("done-old", "dead-old", "done-new", "pending")) {
            ok(enqueue("{\"queue\":\"" + q + "\",\"id\":\"" + id + "\",\"type\":\"t\",\"data\":{},\"maxRetries\":0}"));
        }
        finish(q, true);   // done-old
        finish(q, false);  // dead-old: its only delivery failed
        finish(q, true);   // done-new
        finishedAgo(q, "done-old", "4 days");
        finishedAgo(q, "dead-old", "4 days");
        finishedAgo(q, "done-new", "2 days");

        assertTrue(maintenance().getLong("purgedTasks") >= 2);

        assertEquals(2, count(q), "done-new (inside the 3-day retention) and pending stay");
        TaskTesting.get(q, "done-old").then().statusCode(404);
        TaskTesting.get(q, "dead-old").then().statusCode(404);
        assertEquals("completed", ok(TaskTesting.get(q, "done-new")).getString("state"));
        assertEquals("queued", ok(TaskTesting.get(q, "pending")).getString("state"));
        // the purged id enqueues anew; the kept one is still a duplicate
        assertEquals("enqueued", ok(enqueue("{\"queue\":\"" + q + "\",\"id\":\"done-old\",\"type\":\"t\",\"data\":{}}"))
                .getString("status"));
        assertEquals("duplicate", ok(enqueue("{\"queue\":\"" + q + "\",\"id\":\"done-new\",\"type\":\"t\",\"data\":{}}"))
                .getString("status"));
    }

    @Test
    void aQueueOverrideKeepsItsTasksLongerOrForever() {
        String forever = "keep-forever";
        String longer = "kept-long";
        add(forever, "f-" + System.nanoTime());
        finish(forever, true);
        add(longer, "l1");
        add(longer, "l2");
        finish(longer, true);
        finish(longer, true);
        Db.execute("UPDATE exactly.tasks SET finished_at = now() - interval '400 days' WHERE queue = '" + forever + "'");
        finishedAgo(longer, "l1", "5 days");
        finishedAgo(longer, "l2", "11 days");

        maintenance();

        assertTrue(count(forever) >= 1, "retention 0 keeps finished tasks forever");
        TaskTesting.get(longer, "l1").then().statusCode(200);
        TaskTesting.get(longer, "l2").then().statusCode(404);
    }

    @Test
    void thePurgeRunsInBoundedStepsUntilNothingIsDue() {
        String q = freshQueue("steps");
        int n = 120; // the test profile's batch size is 50: three steps
        StringBuilder batch = new StringBuilder("{\"tasks\":[");
        for (int i = 0; i < n; i++) {
            batch.append(i == 0 ? "" : ",").append("{\"queue\":\"").append(q).append("\",\"id\":\"s").append(i)
                    .append("\",\"type\":\"t\",\"data\":{}}");
        }
        ok(api().body(batch.append("]}").toString()).post("/api/v1/tasks/batch"));
        JsonPath c = ok(claim(q, n, 60));
        for (int i = 0; i < n; i++) {
            complete(q, c.getString("tasks[" + i + "].id"), c.getString("tasks[" + i + "].leaseId")).then().statusCode(200);
        }
        Db.execute("UPDATE exactly.tasks SET finished_at = now() - interval '30 days' WHERE queue = '" + q + "'");

        JsonPath report = maintenance();

        assertTrue(report.getLong("purgedTasks") >= n);
        assertTrue(report.getInt("steps") >= 3, "at most 50 tasks per step");
        assertEquals(0, count(q));
    }

    @Test
    void theListingPagesThroughEveryTaskOnceInEnqueueOrder() {
        String q = freshQueue("list");
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            ids.add("t" + i);
            add(q, "t" + i);
        }
        finish(q, true); // t0 completed

        List<String> seen = new ArrayList<>();
        String after = null;
        int pages = 0;
        do {
            var req = api().queryParam("queue", q).queryParam("limit", 3);
            if (after != null) {
                req = req.queryParam("after", after);
            }
            JsonPath page = ok(req.get("/api/v1/tasks"));
            seen.addAll(page.getList("tasks.id"));
            after = page.getString("next");
            pages++;
        } while (after != null);

        assertEquals(ids, seen);
        assertEquals(3, pages);

        JsonPath completed = ok(api().queryParam("queue", q).queryParam("state", "completed").get("/api/v1/tasks"));
        assertEquals(List.of("t0"), completed.getList("tasks.id"));
        assertNull(completed.getString("next"));
        assertNull(completed.getString("tasks[0].leaseId"));
        JsonPath queued = ok(api().queryParam("queue", q).queryParam("state", "queued").get("/api/v1/tasks"));
        assertEquals(ids.subList(1, 7), queued.getList("tasks.id"));
        assertEquals(Map.of("n", "t1"), queued.getMap("tasks[0].data"));
    }

    @Test
    void theListingTellsScheduledFromQueued() {
        String q = freshQueue("sched");
        ok(enqueue("{\"queue\":\"" + q + "\",\"id\":\"later\",\"type\":\"t\",\"data\":{},\"runAt\":\"2099-01-01T00:00:00Z\"}"));
        add(q, "now");
        assertEquals(List.of("later"),
                ok(api().queryParam("queue", q).queryParam("state", "scheduled").get("/api/v1/tasks")).getList("tasks.id"));
        assertEquals(List.of("now"),
                ok(api().queryParam("queue", q).queryParam("state", "queued").get("/api/v1/tasks")).getList("tasks.id"));
    }

    @Test
    void badListingParametersAreRefused() {
        Set<String> fields = new HashSet<>();
        for (Map<String, Object> params : List.<Map<String, Object>>of(Map.of("state", "done"), Map.of("limit", 0),
                Map.of("limit", 1001), Map.of("limit", "ten"), Map.of("after", "-1"), Map.of("after", "x"),
                Map.of("queue", "bad queue"))) {
            var r = api().queryParams(params).get("/api/v1/tasks");
            r.then().statusCode(400).contentType("application/problem+json");
            fields.add(r.jsonPath().getString("errors[0].field"));
        }
        assertEquals(Set.of("state", "limit", "after", "queue"), fields);
    }
}
