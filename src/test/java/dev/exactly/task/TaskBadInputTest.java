package dev.exactly.task;

import static dev.exactly.task.TaskTesting.count;
import static dev.exactly.task.TaskTesting.enqueue;
import static dev.exactly.task.TaskTesting.freshQueue;
import static dev.exactly.testing.Api.api;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Bad input to the task API: 400 problem+json naming the field, and nothing written. */
@QuarkusTest
class TaskBadInputTest {

    private static ValidatableResponse refused(io.restassured.response.Response r, String field) {
        ValidatableResponse v = r.then().statusCode(400).contentType("application/problem+json")
                .body("type", equalTo("/problems/invalid-request"));
        if (field != null) {
            v.body("errors.field", hasItem(field));
        }
        return v;
    }

    @Test
    void invalidTasksAreRefusedNamingTheFieldAndNothingIsWritten() {
        String q = freshQueue("bad");
        String ok = "\"queue\":\"" + q + "\",\"type\":\"t\",\"data\":{\"a\":1}";
        long before = count(null);
        refused(enqueue("{\"queue\":\"" + q + "\",\"data\":1}"), "type");
        refused(enqueue("{\"queue\":\"" + q + "\",\"type\":\"t\"}"), "data");
        refused(enqueue("{\"queue\":\"" + q + "\",\"type\":\"\",\"data\":1}"), "type");
        refused(enqueue("{\"queue\":\"" + q + "\",\"type\":\"" + "x".repeat(257) + "\",\"data\":1}"), "type");
        refused(enqueue("{\"queue\":\"" + q + "\",\"type\":7,\"data\":1}"), "type");
        refused(enqueue("{\"queue\":\"a queue\",\"type\":\"t\",\"data\":1}"), "queue");
        refused(enqueue("{" + ok + ",\"id\":\"a/b\"}"), "id");
        refused(enqueue("{" + ok + ",\"id\":\"" + "i".repeat(256) + "\"}"), "id");
        refused(enqueue("{" + ok + ",\"maxRetries\":-1}"), "maxRetries");
        refused(enqueue("{" + ok + ",\"maxRetries\":1.5}"), "maxRetries");
        refused(enqueue("{" + ok + ",\"retryDelaySeconds\":-5}"), "retryDelaySeconds");
        refused(enqueue("{" + ok + ",\"priority\":3000000000}"), "priority");
        refused(enqueue("{" + ok + ",\"priority\":\"high\"}"), "priority");
        refused(enqueue("{" + ok + ",\"runAt\":\"tomorrow\"}"), "runAt");
        refused(enqueue("{" + ok + ",\"runAt\":\"2030-01-01T00:00:00\"}"), "runAt");
        refused(enqueue("{" + ok + ",\"autoDedupe\":\"yes\"}"), "autoDedupe");
        refused(enqueue("{" + ok + ",\"autodedupe\":true}"), "autodedupe");
        refused(enqueue("{\"queue\":\"" + q + "\",\"type\":\"t\",\"data\":[1e400],\"autoDedupe\":true}"), "data");
        refused(enqueue("{\"queue\":\"" + q + "\",\"type\":\"t\",\"data\":\"\\ud800\",\"autoDedupe\":true}"), "data");
        refused(enqueue("{\"queue\":\"" + q + "\",\"type\":\"t\",\"data\":{\"x\":[\"a\\udc00\"]},\"autoDedupe\":true}"), "data.x[0]");
        // I-JSON (RFC 7493): a lone surrogate escape is refused in any task data, deduplicated or not
        refused(enqueue("{\"queue\":\"" + q + "\",\"type\":\"t\",\"data\":{\"x\":\"\\ud800\"}}"), "data.x")
                .body("detail", containsString("lone surrogate escape"));
        refused(enqueue("{" + ok + ",\"type\":\"u\"}"), "type").body("detail", containsString("Duplicate field"));
        refused(enqueue("{\"queue\":\"" + q + "\",\"type\":\"t\",\"data\":{\"a\":1,\"a\":2}}"), "data.a")
                .body("detail", containsString("Duplicate field"));
        refused(enqueue("{" + ok), null).body("detail", containsString("malformed JSON"));
        refused(enqueue("[]"), null);
        refused(enqueue(""), null);
        refused(enqueue("{" + ok + "} {}"), null);
        assertEquals(before, count(null));
    }

    @Test
    void aBatchWithOneBadTaskWritesNothingAndNamesTheIndex() {
        String q = freshQueue("badbatch");
        long before = count(null);
        String body = "{\"tasks\":[{\"queue\":\"" + q + "\",\"type\":\"t\",\"data\":1},"
                + "{\"queue\":\"" + q + "\",\"type\":\"t\",\"data\":2},"
                + "{\"queue\":\"" + q + "\",\"type\":\"t\"}]}";
        refused(api().body(body).post("/api/v1/tasks/batch"), "data")
                .body("errors[0].index", equalTo(2))
                .body("detail", containsString("tasks[2].data"));
        refused(api().body("{\"tasks\":[3]}").post("/api/v1/tasks/batch"), null).body("errors[0].index", equalTo(0));
        refused(api().body("{\"tasks\":{}}").post("/api/v1/tasks/batch"), "tasks");
        refused(api().body("{}").post("/api/v1/tasks/batch"), "tasks");
        refused(api().body("{\"tasks\":[],\"more\":1}").post("/api/v1/tasks/batch"), "more");
        StringBuilder many = new StringBuilder("{\"tasks\":[");
        for (int i = 0; i < 1001; i++) {
            many.append(i == 0 ? "" : ",").append("{\"queue\":\"").append(q).append("\",\"type\":\"t\",\"data\":").append(i).append('}');
        }
        refused(api().body(many.append("]}").toString()).post("/api/v1/tasks/batch"), "tasks");
        assertEquals(before, count(null));
    }

    @Test
    void invalidWorkerRequestsAreRefusedNamingTheField() {
        String q = freshQueue("badworker");
        refused(api().body("{\"queue\":\"" + q + "\",\"limit\":0}").post("/api/v1/tasks/claim"), "limit");
        refused(api().body("{\"queue\":\"" + q + "\",\"limit\":100000}").post("/api/v1/tasks/claim"), "limit");
        refused(api().body("{\"queue\":\"" + q + "\",\"leaseSeconds\":0}").post("/api/v1/tasks/claim"), "leaseSeconds");
        refused(api().body("{\"queue\":\"" + q + "\",\"types\":[]}").post("/api/v1/tasks/claim"), "types");
        refused(api().body("{\"queue\":\"" + q + "\",\"types\":[1]}").post("/api/v1/tasks/claim"), "types[0]");
        refused(api().body("{\"queue\":\"a b\"}").post("/api/v1/tasks/claim"), "queue");
        refused(api().body("{\"queue\":\"" + q + "\",\"worker\":\"w1\"}").post("/api/v1/tasks/claim"), "worker");

        String id = "w-" + UUID.randomUUID();
        enqueue("{\"queue\":\"" + q + "\",\"id\":\"" + id + "\",\"type\":\"t\",\"data\":1}").then().statusCode(200);
        String complete = "/api/v1/tasks/{id}/complete";
        refused(api().queryParam("queue", q).body("{}").post(complete, id), "leaseId");
        refused(api().queryParam("queue", q).body("{\"leaseId\":\"nope\"}").post(complete, id), "leaseId");
        refused(api().queryParam("queue", q).body("").post(complete, id), null);
        refused(api().queryParam("queue", q).body("{\"leaseId\":\"" + UUID.randomUUID() + "\",\"result\":[\"\\udfff\"]}")
                .post(complete, id), "result[0]");
        refused(api().queryParam("queue", q).body("{\"leaseId\":\"" + UUID.randomUUID() + "\"}")
                .post("/api/v1/tasks/{id}/fail", id), "error");
        refused(api().queryParam("queue", "a b").get("/api/v1/tasks/{id}", id), "queue");
        refused(api().queryParam("queue", q).get("/api/v1/tasks/{id}", "a b"), "id");
        refused(api().queryParam("queue", q).queryParam("leaseId", "x").delete("/api/v1/tasks/{id}", id), "leaseId");
        api().queryParam("queue", q).get("/api/v1/tasks/{id}", id).then().statusCode(200)
                .body("state", equalTo("queued")).body("attempts", equalTo(0));
        // a well-formed lease that is not the task's: 409, nothing changed
        api().queryParam("queue", q).body("{\"leaseId\":\"" + UUID.randomUUID() + "\"}").post(complete, id)
                .then().statusCode(409).contentType("application/problem+json").body("errors[0].field", equalTo("leaseId"));
        api().queryParam("queue", q).get("/api/v1/tasks/{id}", id).then().statusCode(200).body("state", equalTo("queued"));
    }
}
