package dev.exactly.destination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * How a store asks for drains in the Lambda shape (sql/V25__delivery_drains.sql): only for a queue
 * that has a destination, at most once per debounce period, and at once again after a drain
 * cleared its mark; and when the partitions a drain left parked are due.
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

    @Test
    void theFirstParkedPartitionNoDrainHoldsIsDueWhenItsBackoffEnds() {
        String a = "drain-due-a-" + System.nanoTime();
        String b = "drain-due-b-" + System.nanoTime();
        assertNull(drains.dueInMs(List.of(a, b)).await().atMost(WAIT), "nothing parked");
        UUID leaseOfA = UUID.randomUUID();
        drains.park(a, 1, leaseOfA, 5, 2, 40_000).await().atMost(WAIT);
        drains.park(b, 2, UUID.randomUUID(), 7, 2, 4_000).await().atMost(WAIT);
        long both = drains.dueInMs(List.of(a, b)).await().atMost(WAIT);
        assertTrue(both > 2_000 && both <= 4_000, "the first of the two, b's, in about 4 s: " + both);
        long onlyA = drains.dueInMs(List.of(a)).await().atMost(WAIT);
        assertTrue(onlyA > 38_000 && onlyA <= 40_000, "a's own, in about 40 s: " + onlyA);
        drains.park(b, 2, UUID.randomUUID(), 7, 2, 0).await().atMost(WAIT);
        assertEquals(0L, drains.dueInMs(List.of(a, b)).await().atMost(WAIT), "due now");
        DrainRepository.Parked held = drains.claim(b, 20).await().atMost(WAIT);
        assertNotNull(held, "a drain holds b's partition");
        assertNull(drains.dueInMs(List.of(b)).await().atMost(WAIT), "held: its drain is resuming it");
        pool.preparedQuery("UPDATE exactly.destination_parked SET claimed_until = now() - interval '1 second' "
                + "WHERE destination = $1").execute(Tuple.of(b)).await().atMost(WAIT);
        assertEquals(0L, drains.dueInMs(List.of(b)).await().atMost(WAIT), "its holder's claim ran out unfinished: due");
        drains.unpark(a, 1, leaseOfA).await().atMost(WAIT);
        drains.unpark(b, 2, held.leaseId()).await().atMost(WAIT);
        assertNull(drains.dueInMs(List.of(a, b)).await().atMost(WAIT), "nothing parked once resumed");
    }

    @Test
    void aResumeForgetsOnlyThePartitionItClaimedNotOneParkedAgainUnderAnotherLease() {
        String d = "drain-unpark-" + System.nanoTime();
        UUID first = UUID.randomUUID();
        drains.park(d, 3, first, 10, 2, 0).await().atMost(WAIT);
        DrainRepository.Parked held = drains.claim(d, 20).await().atMost(WAIT);
        assertNotNull(held, "a drain claims the partition parked under the first lease");
        assertEquals(first, held.leaseId());
        // meanwhile the first lease ran out; the group delivered the partition again under a second
        // lease, whose attempt failed and parked the partition anew
        UUID second = UUID.randomUUID();
        drains.park(d, 3, second, 10, 2, 60_000).await().atMost(WAIT);
        drains.unpark(d, held.partitionId(), held.leaseId()).await().atMost(WAIT);
        Long left = drains.dueInMs(List.of(d)).await().atMost(WAIT);
        assertNotNull(left, "the partition parked under the second lease is kept");
        assertTrue(left > 50_000, "still due in about 60 s: " + left);
        drains.unpark(d, 3, second).await().atMost(WAIT);
        assertNull(drains.dueInMs(List.of(d)).await().atMost(WAIT), "forgotten under its own lease");
    }
}
