package dev.exactly.task;

import static dev.exactly.task.TaskTesting.count;
import static dev.exactly.task.TaskTesting.freshQueue;
import static dev.exactly.testing.Api.api;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.http.JsonBodyReader;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Exactness under concurrency with two application instances: this Quarkus app (over HTTP) and a
 * second {@link TaskService} with its own Vert.x and connection pool on the same database.
 */
@QuarkusTest
class TaskConcurrencyTest {

    private static TaskTesting.SecondInstance second;
    private static ExecutorService threads;

    @BeforeAll
    static void start() {
        second = new TaskTesting.SecondInstance();
        threads = Executors.newFixedThreadPool(32);
    }

    @AfterAll
    static void stop() throws InterruptedException {
        threads.shutdownNow();
        threads.awaitTermination(30, TimeUnit.SECONDS);
        second.close();
    }

    /** Runs the calls at once (behind a start gate) and returns their results in order. */
    private static <T> List<T> together(List<Callable<T>> calls) throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        List<Future<T>> futures = new ArrayList<>();
        for (Callable<T> c : calls) {
            futures.add(threads.submit(() -> {
                gate.await();
                return c.call();
            }));
        }
        gate.countDown();
        List<T> out = new ArrayList<>();
        for (Future<T> f : futures) {
            out.add(f.get(120, TimeUnit.SECONDS));
        }
        return out;
    }

    /** A batch's tasks, as the batch route makes them. */
    private static List<NewTask> tasks(TaskRequest.Batch batch) {
        List<NewTask> out = new ArrayList<>();
        for (int i = 0; i < batch.tasks().size(); i++) {
            out.add(batch.tasks().get(i).task(i));
        }
        return out;
    }

    @Test
    void thirtyTwoConcurrentIdenticalEnqueuesFromTwoInstancesMakeOneTask() throws Exception {
        for (int round = 0; round < 5; round++) {
            String q = freshQueue("race");
            List<Callable<String[]>> calls = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                // different ids, same type and data (member order and whitespace vary)
                String data = i % 2 == 0 ? "{\"user\":\"john\",\"period\":\"daily\"}" : "{ \"period\":\"daily\", \"user\":\"john\" }";
                String body = "{\"queue\":\"" + q + "\",\"id\":\"digest-" + i + "\",\"type\":\"send_digest\",\"data\":"
                        + data + ",\"autoDedupe\":true}";
                if (i % 2 == 0) {
                    calls.add(() -> {
                        JsonPath r = api().body(body).post("/api/v1/tasks").then().statusCode(200).extract().jsonPath();
                        return new String[] {r.getString("status"), r.getString("taskId")};
                    });
                } else {
                    calls.add(() -> {
                        NewTask t = JsonBodyReader.read(TaskRequest.class, body.getBytes(StandardCharsets.UTF_8)).task(null);
                        Enqueued e = second.service.enqueue(List.of(t)).await().atMost(java.time.Duration.ofSeconds(60)).get(0);
                        return new String[] {e.duplicate() ? "duplicate" : "enqueued", e.taskId()};
                    });
                }
            }
            List<String[]> results = together(calls);
            List<String> enqueued = new ArrayList<>();
            Set<String> ids = new HashSet<>();
            for (String[] r : results) {
                if (r[0].equals("enqueued")) {
                    enqueued.add(r[1]);
                }
                ids.add(r[1]);
            }
            assertEquals(1, enqueued.size(), "exactly one enqueued in round " + round);
            assertEquals(Set.of(enqueued.get(0)), ids, "all 31 duplicates carry the winner's id");
            assertEquals(31, results.stream().filter(r -> r[0].equals("duplicate")).count());
            assertEquals(1, count(q));
        }
    }

    @Test
    void concurrentIdenticalBatchesFromTwoInstancesMakeOneTaskPerPayload() throws Exception {
        String q = freshQueue("batchrace");
        StringBuilder tasks = new StringBuilder();
        for (int k = 0; k < 20; k++) {
            tasks.append(k == 0 ? "" : ",").append("{\"queue\":\"").append(q).append("\",\"type\":\"t\",\"data\":{\"k\":")
                    .append(k).append("},\"autoDedupe\":true}");
        }
        String body = "{\"tasks\":[" + tasks + "]}";
        List<Callable<List<String>>> calls = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            if (i % 2 == 0) {
                calls.add(() -> api().body(body).post("/api/v1/tasks/batch").then().statusCode(200).extract()
                        .jsonPath().getList("results.taskId", String.class));
            } else {
                calls.add(() -> second.service.enqueue(tasks(JsonBodyReader.read(TaskRequest.Batch.class, body.getBytes(StandardCharsets.UTF_8))))
                        .await().atMost(java.time.Duration.ofSeconds(60)).stream().map(Enqueued::taskId).toList());
            }
        }
        List<List<String>> results = together(calls);
        for (List<String> r : results) {
            assertEquals(results.get(0), r, "every batch names the same task for each payload");
        }
        assertEquals(20, new HashSet<>(results.get(0)).size());
        assertEquals(20, count(q));
    }

    @Test
    void claimNeverHandsOneTaskToTwoWorkers() throws Exception {
        String q = freshQueue("claims");
        int total = 300;
        for (int from = 0; from < total; from += 100) {
            StringBuilder tasks = new StringBuilder();
            for (int k = from; k < from + 100; k++) {
                tasks.append(k == from ? "" : ",").append("{\"queue\":\"").append(q).append("\",\"id\":\"t").append(k)
                        .append("\",\"type\":\"t\",\"data\":").append(k).append(",\"priority\":").append(k % 3).append('}');
            }
            api().body("{\"tasks\":[" + tasks + "]}").post("/api/v1/tasks/batch").then().statusCode(200);
        }
        ClaimCommand command = new ClaimCommand(q, null, 7, 300);
        List<Callable<List<String>>> workers = new ArrayList<>();
        for (int w = 0; w < 12; w++) {
            boolean viaHttp = w % 2 == 0;
            workers.add(() -> {
                List<String> mine = new ArrayList<>();
                while (true) {
                    List<String> got = viaHttp
                            ? api().body(Map.of("queue", q, "limit", 7, "leaseSeconds", 300)).post("/api/v1/tasks/claim")
                                    .then().statusCode(200).extract().jsonPath().getList("tasks.id", String.class)
                            : second.service.claim(command).await().atMost(java.time.Duration.ofSeconds(60)).stream()
                                    .map(StoredTask::taskId).toList();
                    if (got.isEmpty()) {
                        return mine;
                    }
                    mine.addAll(got);
                }
            });
        }
        List<List<String>> claimed = together(workers);
        Map<String, Integer> times = new HashMap<>();
        int handedOut = 0;
        for (List<String> mine : claimed) {
            handedOut += mine.size();
            for (String id : mine) {
                times.merge(id, 1, Integer::sum);
            }
        }
        List<String> twice = times.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).toList();
        assertEquals(List.of(), twice, "tasks handed to two workers");
        assertEquals(total, handedOut);
        assertEquals(total, times.size());
        assertTrue(claimed.stream().filter(l -> !l.isEmpty()).count() > 1, "more than one worker got work");
        assertEquals(Collections.emptyList(), api().body(Map.of("queue", q)).post("/api/v1/tasks/claim")
                .then().statusCode(200).extract().jsonPath().getList("tasks"));
    }
}
