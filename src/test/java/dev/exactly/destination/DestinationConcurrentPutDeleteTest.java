package dev.exactly.destination;

import static dev.exactly.destination.DestinationFixtures.deleteAll;
import static dev.exactly.destination.DestinationFixtures.fresh;
import static dev.exactly.testing.Api.api;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Concurrent PUTs and DELETEs of one destination name, against the real PostgreSQL: each answer
 * is true for the state its own statement saw, so they count up. Starting with no destination,
 * every 201 (created) is undone by at most one 204 (deleted), and the destination exists at the
 * end exactly when the 201s outnumber the 204s (by one); when it exists, it is whole (its row and
 * its figures row, as a GET answers it), and when it does not, nothing of it is left.
 */
@QuarkusTest
class DestinationConcurrentPutDeleteTest {

    private static final int ROUNDS = 15;
    private static final int REQUESTS = 12;

    @Inject
    Pool pool;

    @AfterEach
    void clean() {
        deleteAll(pool);
    }

    @Test
    void concurrentPutsAndDeletesAnswerWhatTheyDid() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(REQUESTS);
        List<String> problems = new ArrayList<>();
        Map<String, Integer> totals = new TreeMap<>();
        try {
            for (int round = 0; round < ROUNDS; round++) {
                String queue = fresh("dest-race");
                String name = "race-" + queue;
                String path = "/api/v1/queues/" + queue + "/destinations/" + name;
                CyclicBarrier start = new CyclicBarrier(REQUESTS);
                List<Future<String>> answers = new ArrayList<>();
                for (int i = 0; i < REQUESTS; i++) {
                    boolean put = i % 2 == 0;
                    answers.add(threads.submit(() -> {
                        start.await(10, TimeUnit.SECONDS);
                        int status = put
                                ? api().body("{\"url\":\"http://127.0.0.2:9/hook\"}").put(path).statusCode()
                                : api().delete(path).statusCode();
                        return (put ? "PUT " : "DELETE ") + status;
                    }));
                }
                Map<String, Integer> counts = new TreeMap<>();
                for (Future<String> f : answers) {
                    counts.merge(f.get(60, TimeUnit.SECONDS), 1, Integer::sum);
                }
                counts.forEach((k, v) -> totals.merge(k, v, Integer::sum));
                int created = counts.getOrDefault("PUT 201", 0);
                int deleted = counts.getOrDefault("DELETE 204", 0);
                int others = REQUESTS - created - deleted - counts.getOrDefault("PUT 200", 0) - counts.getOrDefault("DELETE 404", 0);
                long rows = count("SELECT count(*) FROM exactly.destinations WHERE name = $1", name);
                long state = count("SELECT count(*) FROM exactly.destination_state WHERE name = $1", name);
                int get = api().get(path).statusCode();
                if (others != 0 || created - deleted != rows || rows != state || get != (rows == 1 ? 200 : 404)) {
                    problems.add("round " + round + ": " + counts + ", then " + rows + " destination row, " + state
                            + " figures row, GET " + get);
                }
            }
        } finally {
            threads.shutdownNow();
        }
        System.out.println("answers over " + ROUNDS + " rounds: " + totals);
        assertEquals(List.of(), problems);
    }

    private long count(String sql, String name) {
        return pool.preparedQuery(sql).execute(Tuple.of(name)).await().indefinitely().iterator().next().getLong(0);
    }
}
