package dev.exactly.queue;

import static dev.exactly.consume.ConsumeFixtures.ack;
import static dev.exactly.consume.ConsumeFixtures.ackById;
import static dev.exactly.consume.ConsumeFixtures.completeAll;
import static dev.exactly.consume.ConsumeFixtures.pop;
import static dev.exactly.consume.ConsumeFixtures.pushMany;
import static dev.exactly.testing.Api.api;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The operators' queue figures against the embedded PostgreSQL: the paged listing, a queue's
 * partitions, messages, per-group lag and dead-letter depth, and the same figures as gauges for the
 * queue the test profile names in exactly.metrics.queues ("stats-gauged").
 */
@QuarkusTest
class QueueStatsTest {

    @Inject
    QueueGauges gauges;

    @Inject
    MeterRegistry registry;

    private static JsonPath stats(String queue) {
        return api().get("/api/v1/queues/{q}/stats", queue).then().statusCode(200).extract().jsonPath();
    }

    @Test
    void statsCountPartitionsMessagesLagAndDeadLetters() {
        String q = "stats-" + UUID.randomUUID().toString().substring(0, 8);
        pushMany(q, "a", "a", 5);
        pushMany(q, "b", "b", 3);

        JsonPath before = stats(q);
        assertEquals(2, before.getInt("partitions"));
        assertEquals(8, before.getInt("messages"));
        assertEquals(q + ".dlq", before.getString("deadLetterQueue"));
        assertEquals(0, before.getInt("deadLetters"));
        assertEquals(List.of(), before.getList("consumerGroups"), "no group has read yet");

        // g1 settles 2 of partition a and dead-letters 1; partition b is untouched by g1
        List<Map<String, Object>> popped = pop(q, "a", "g1", 3);
        assertEquals(3, popped.size());
        completeAll(popped.subList(0, 2), "g1");
        ack(ackById(popped.get(2), "g1", "dlq")).then().statusCode(200);

        JsonPath after = stats(q);
        assertEquals(1, after.getInt("deadLetters"));
        assertEquals(1, after.getList("consumerGroups").size());
        assertEquals("g1", after.getString("consumerGroups[0].group"));
        assertEquals(2 + 3, after.getInt("consumerGroups[0].lag"), "2 left in a, 3 in b");
        assertNotNull(after.getString("consumerGroups[0].oldestUndeliveredAt"));
        assertTrue(after.getDouble("consumerGroups[0].oldestUndeliveredAgeSeconds") >= 0);
        assertEquals(8, after.getInt("messages"), "acking does not delete");
    }

    @Test
    void aGroupWithNothingWaitingHasNoOldest() {
        String q = "stats-done-" + UUID.randomUUID().toString().substring(0, 8);
        pushMany(q, "p", "k", 2);
        completeAll(pop(q, "p", "g", 10), "g");
        JsonPath s = stats(q);
        assertEquals(0, s.getInt("consumerGroups[0].lag"));
        assertNull(s.getString("consumerGroups[0].oldestUndeliveredAt"));
    }

    @Test
    void unknownQueueIs404AndBadNameIs400() {
        api().get("/api/v1/queues/{q}/stats", "no-such-queue-" + UUID.randomUUID()).then().statusCode(404)
                .contentType("application/problem+json");
        api().get("/api/v1/queues/{q}/stats", "bad name").then().statusCode(400);
    }

    @Test
    void theListingPagesThroughEveryQueueOnceByName() {
        String prefix = "list-" + UUID.randomUUID().toString().substring(0, 6) + "-";
        List<String> mine = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            mine.add(prefix + i);
            pushMany(prefix + i, "p", "k", i + 1);
        }
        List<String> seen = new ArrayList<>();
        List<Integer> sizes = new ArrayList<>();
        String after = null;
        do {
            var req = api().queryParam("limit", 2);
            if (after != null) {
                req = req.queryParam("after", after);
            }
            JsonPath page = req.get("/api/v1/queues").then().statusCode(200).extract().jsonPath();
            List<String> names = page.getList("queues.queue");
            assertTrue(names.size() <= 2);
            for (int i = 0; i < names.size(); i++) {
                if (names.get(i).startsWith(prefix)) {
                    seen.add(names.get(i));
                    sizes.add(page.getInt("queues[" + i + "].messages"));
                    assertEquals(1, page.getInt("queues[" + i + "].partitions"));
                    assertEquals(3600, page.getInt("queues[" + i + "].options.dedupWindowSeconds"));
                }
            }
            after = page.getString("next");
        } while (after != null);
        assertEquals(mine, seen);
        assertEquals(List.of(1, 2, 3, 4, 5), sizes);
    }

    @Test
    void badListingParametersAreRefused() {
        for (String limit : new String[] {"0", "1001", "x"}) {
            api().queryParam("limit", limit).get("/api/v1/queues").then().statusCode(400)
                    .contentType("application/problem+json");
        }
        api().queryParam("after", "bad name").get("/api/v1/queues").then().statusCode(400);
    }

    @Test
    void theNamedQueuesFiguresAreGauges() {
        String q = "stats-gauged";
        pushMany(q, "p", "g" + UUID.randomUUID(), 4);
        completeAll(pop(q, "p", "workers", 1), "workers");

        gauges.refresh().await().indefinitely();

        assertTrue(registry.get("exactly.queue.messages").tag("queue", q).gauge().value() >= 4);
        assertEquals(1, registry.get("exactly.queue.partitions").tag("queue", q).gauge().value());
        double lag = registry.get("exactly.queue.lag.messages").tag("queue", q).tag("group", "workers").gauge().value();
        assertTrue(lag >= 3, "lag " + lag);
        assertEquals(0, registry.get("exactly.queue.dead.letters").tag("queue", q).gauge().value());
        assertTrue(registry.find("exactly.queue.messages").tag("queue", "stats-not-named").gauges().isEmpty());
        String scrape = api().get("/q/metrics").then().statusCode(200).extract().asString();
        assertTrue(scrape.contains("exactly_queue_lag_messages{group=\"workers\",queue=\"stats-gauged\"}"), scrape.length() + " chars");
    }
}
