package dev.exactly.task;

import static dev.exactly.testing.Api.api;

import dev.exactly.testing.AppDatabase;
import dev.exactly.testing.Db;
import io.restassured.response.Response;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.sqlclient.Pool;
import java.util.Map;
import java.util.UUID;

/** Helpers for the task tests: API calls, row counts on the app's database, a second instance. */
final class TaskTesting {

    private TaskTesting() {
    }

    /** A queue name no other test uses. */
    static String freshQueue(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** POST /api/v1/tasks with a raw JSON body. */
    static Response enqueue(String json) {
        return api().body(json).post("/api/v1/tasks");
    }

    /** POST /api/v1/tasks/claim. */
    static Response claim(String queue, int limit, int leaseSeconds) {
        return api().body(Map.of("queue", queue, "limit", limit, "leaseSeconds", leaseSeconds))
                .post("/api/v1/tasks/claim");
    }

    /** POST /api/v1/tasks/{id}/complete. */
    static Response complete(String queue, String id, String leaseId) {
        return api().queryParam("queue", queue).body(Map.of("leaseId", leaseId, "result", Map.of("ok", true)))
                .post("/api/v1/tasks/{id}/complete", id);
    }

    /** POST /api/v1/tasks/{id}/fail. */
    static Response fail(String queue, String id, String leaseId, String error) {
        return api().queryParam("queue", queue).body(Map.of("leaseId", leaseId, "error", error))
                .post("/api/v1/tasks/{id}/fail", id);
    }

    /** GET /api/v1/tasks/{id}. */
    static Response get(String queue, String id) {
        return api().queryParam("queue", queue).get("/api/v1/tasks/{id}", id);
    }

    /** Rows of exactly.tasks in a queue (null = all queues), counted on the app's database. */
    static long count(String queue) {
        return Db.number(queue == null ? "SELECT count(*) FROM exactly.tasks"
                : "SELECT count(*) FROM exactly.tasks WHERE queue = '" + queue.replace("'", "''") + "'");
    }

    /**
     * A second application instance's task stack: its own Vert.x, its own connection pool to the
     * same database, its own {@link TaskRepository} and {@link TaskService} (as a second function
     * instance or server would have).
     */
    static final class SecondInstance implements AutoCloseable {
        final Vertx vertx = Vertx.vertx();
        final Pool pool;
        final TaskService service;

        SecondInstance() {
            pool = AppDatabase.pool(vertx, 8);
            service = new TaskService(new TaskRepository(pool),
                    new dev.exactly.wiring.PayloadMismatchMetrics(new io.micrometer.core.instrument.simple.SimpleMeterRegistry()));
        }

        @Override
        public void close() {
            pool.closeAndAwait();
            vertx.closeAndAwait();
        }
    }
}
