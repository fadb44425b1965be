package dev.exactly.destination;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * How a store asks for drains in the Lambda shape (sql/V25__delivery_drains.sql): only for a queue
 * that has a destination, at most once per debounce period, and at once again after a drain
 * cleared its mark.
 */
@QuarkusTest
class DrainRepositoryTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @Inject
    Pool pool;

    @Inject
    DrainRepository drains;

    @Test
    void aQueueWithADestinationIsAskedForOncePerDebounceUntilADrainClearsIt() {
        String q = "drain-ask-" + System.nanoTime();
        List<String> queues = List.of(q);
        assertEquals(List.of(), drains.ask(queues, List.of(), 60_000).await().atMost(WAIT), "no destination: no drain");
        assertEquals(queues, drains.ask(queues, queues, 60_000).await().atMost(WAIT), "a configured destination");
        assertEquals(List.of(), drains.ask(queues, queues, 60_000).await().atMost(WAIT), "asked for within the debounce");
        drains.clear(queues).await().atMost(WAIT);
        assertEquals(queues, drains.ask(queues, queues, 60_000).await().atMost(WAIT), "cleared by a drain that found nothing");
        assertEquals(queues, drains.ask(queues, queues, 0).await().atMost(WAIT), "no debounce");
    }

    @Test
    void aDestinationDefinedThroughTheApiCountsAsWell() {
        String q = "drain-api-" + System.nanoTime();
        pool.preparedQuery("INSERT INTO exactly.destinations (name, queue, type, url, timeout_ms, max_attempts, backoff_ms, "
                        + "backoff_cap_ms) VALUES ($1, $2, 'http', 'https://example.com/', 1000, 1, 1000, 1000)")
                .execute(Tuple.of("d-" + q, q)).await().atMost(WAIT);
        String other = "drain-none-" + System.nanoTime();
        assertEquals(List.of(q), drains.ask(List.of(q, other), List.of(), 60_000).await().atMost(WAIT));
        assertEquals(Set.of(q), drains.withDestinations(List.of(q, other)).await().atMost(WAIT),
                "the lookup a Lambda instance keeps for a while");
        pool.preparedQuery("DELETE FROM exactly.destinations WHERE name = $1").execute(Tuple.of("d-" + q)).await().atMost(WAIT);
    }
}
