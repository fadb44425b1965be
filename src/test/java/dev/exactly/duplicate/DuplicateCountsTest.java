package dev.exactly.duplicate;

import static dev.exactly.consume.ConsumeFixtures.maintenance;
import static dev.exactly.consume.ConsumeFixtures.options;
import static dev.exactly.testing.Api.api;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.engine.DuplicateTally;
import dev.exactly.testing.Db;
import dev.exactly.testing.EnginePools;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The duplicates answered per queue, against the embedded PostgreSQL: counted in memory on the
 * push path (which still writes nothing for a duplicate), written by the flusher to the unlogged
 * table, summed over the queue's window by the stats and the gauge, old buckets left out and then
 * purged by the maintenance job. The test profile sets exactly.duplicate-counts.flush-every to an
 * hour, so only the test writes the counts. Time passing is simulated by moving buckets back.
 */
@QuarkusTest
class DuplicateCountsTest {

    @Inject
    DuplicateFlusher flusher;

    @Inject
    dev.exactly.queue.QueueGauges gauges;

    @Inject
    MeterRegistry registry;

    @Inject
    DuplicateTally tally;

    private static String fresh(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static List<String> push(String queue, String... transactionIds) {
        StringBuilder b = new StringBuilder("{\"items\":[");
        for (int i = 0; i < transactionIds.length; i++) {
            // partition "p", as QueueStatsTest pushes to the gauged queue (it counts one partition)
            b.append(i == 0 ? "" : ",").append("{\"queue\":\"").append(queue).append("\",\"partition\":\"p\"")
                    .append(",\"transactionId\":\"").append(transactionIds[i]).append("\",\"payload\":{}}");
        }
        return api().body(b.append("]}").toString()).post("/api/v1/push").then().statusCode(200)
                .extract().jsonPath().getList("results.status");
    }

    private static JsonPath stats(String queue) {
        return api().get("/api/v1/queues/{q}/stats", queue).then().statusCode(200).extract().jsonPath();
    }

    private static long stored(String queue) {
        return Db.number("SELECT coalesce(sum(d.duplicates), 0) FROM exactly.duplicate_counts d "
                + "JOIN exactly.queues q ON q.id = d.queue_id WHERE q.name = '" + queue + "'");
    }

    private static void ageBuckets(String queue, int seconds) {
        Db.execute("UPDATE exactly.duplicate_counts d SET bucket = bucket - make_interval(secs => " + seconds + ") "
                + "FROM exactly.queues q WHERE q.id = d.queue_id AND q.name = '" + queue + "'");
    }

    @Test
    void duplicatesAreCountedOffThePushPathAndShownOnceFlushed() {
        String q = fresh("dup");
        assertEquals(List.of("queued"), push(q, "a"));
        long footprint = Db.writeFootprint();

        // a stored duplicate, a duplicate inside the request, and one new message; then a retry
        assertEquals(List.of("duplicate", "duplicate", "queued"), push(q, "a", "a", "b"));
        assertEquals(List.of("duplicate", "duplicate"), push(q, "a", "b"));

        assertEquals(footprint + 3, Db.writeFootprint(), "the duplicates wrote nothing: one message, one hash, one offset");
        assertEquals(0, stored(q), "nothing stored before the flush");
        assertEquals(0, stats(q).getLong("duplicates.atLeast"));

        assertTrue(flusher.flush().await().indefinitely() >= 1);

        JsonPath s = stats(q);
        assertEquals(4, s.getLong("duplicates.atLeast"));
        assertEquals(3600, s.getInt("duplicates.windowSeconds"));
        assertEquals(4, stored(q));
        assertEquals(1, Db.number("SELECT (relpersistence = 'u')::int FROM pg_class "
                + "WHERE oid = 'exactly.duplicate_counts'::regclass"), "an unlogged table");

        // a second flush adds to the same minute's bucket
        push(q, "b");
        flusher.flush().await().indefinitely();
        assertEquals(5, stats(q).getLong("duplicates.atLeast"));
    }

    @Test
    void bucketsOlderThanTheWindowAreLeftOutThenPurged() {
        String q = fresh("dup-window");
        options(q, Map.of("dedupWindowSeconds", 600));
        push(q, "x");
        push(q, "x", "x");
        flusher.flush().await().indefinitely();
        assertEquals(2, stats(q).getLong("duplicates.atLeast"));

        ageBuckets(q, 11 * 60); // that minute now started 11 minutes ago, before the 10-minute window
        push(q, "y");
        push(q, "y");
        flusher.flush().await().indefinitely();

        JsonPath s = stats(q);
        assertEquals(1, s.getLong("duplicates.atLeast"), "only the bucket inside the window");
        assertEquals(600, s.getInt("duplicates.windowSeconds"));
        assertEquals(3, stored(q), "the old bucket is still stored until the maintenance job runs");

        Map<String, Object> report = maintenance();
        assertTrue(((Number) report.get("purgedDuplicateBuckets")).longValue() >= 1, report.toString());
        assertEquals(1, stored(q), "the old bucket is gone, the one inside the window stays");
        assertEquals(1, stats(q).getLong("duplicates.atLeast"));
    }

    @Test
    void purgedMinutesAreKeptPerHourForTheSeries() {
        String q = fresh("dup-rollup");
        options(q, Map.of("dedupWindowSeconds", 600));
        push(q, "r");
        push(q, "r", "r", "r");
        flusher.flush().await().indefinitely();
        ageBuckets(q, 3 * 3600); // answered three hours ago: before the window
        push(q, "s");
        push(q, "s");
        flusher.flush().await().indefinitely();
        JsonPath before = api().get("/api/v1/queues/{q}/duplicates", q).then().statusCode(200).extract().jsonPath();
        assertEquals(List.of(3, 1), before.getList("hours.duplicates"), "read from the minutes before the purge");

        Map<String, Object> report = maintenance();
        assertTrue(((Number) report.get("purgedDuplicateBuckets")).longValue() >= 1, report.toString());
        assertEquals(1, stored(q), "the minutes before the window are gone from the unlogged table");
        assertEquals(3, Db.number("SELECT coalesce(sum(r.duplicates), 0) FROM exactly.duplicate_rollup r "
                + "JOIN exactly.queues q ON q.id = r.queue_id WHERE q.name = '" + q + "'"), "rolled up");

        JsonPath after = api().get("/api/v1/queues/{q}/duplicates", q).then().statusCode(200).extract().jsonPath();
        assertEquals(before.getList("hours"), after.getList("hours"), "the same series, each minute counted once");
        assertEquals(600, after.getInt("windowSeconds"));
        assertEquals(List.of(1), api().queryParam("hours", 1).get("/api/v1/queues/{q}/duplicates", q).then()
                .statusCode(200).extract().jsonPath().getList("hours.duplicates"), "the last hour only");
        api().queryParam("hours", 841).get("/api/v1/queues/{q}/duplicates", q).then().statusCode(400);
        api().get("/api/v1/queues/{q}/duplicates", fresh("none")).then().statusCode(404);

        // a second purge adds nothing twice
        maintenance();
        assertEquals(before.getList("hours"), api().get("/api/v1/queues/{q}/duplicates", q).then().statusCode(200)
                .extract().jsonPath().getList("hours"));
    }

    @Test
    void aFailedWriteKeepsItsCountsForTheNextOne() {
        String q = fresh("dup-retry");
        push(q, "k");
        push(q, "k");
        try (EnginePools pools = EnginePools.migrated()) {
            Pool closed = pools.pool(1);
            closed.closeAndAwait();
            DuplicateFlusher failing = new DuplicateFlusher(tally, new DuplicateCountRepository(closed));
            assertThrows(RuntimeException.class, () -> failing.flush().await().indefinitely());
            assertEquals(0, failing.flushIfDue().await().indefinitely(), "a piggybacked write absorbs the failure");
        }
        assertFalse(tally.isEmpty(), "the counts were put back");
        assertEquals(0, stored(q));

        flusher.flush().await().indefinitely();
        assertEquals(1, stats(q).getLong("duplicates.atLeast"), "counted once, not lost, not doubled");
    }

    @Test
    void aNamedQueuesDuplicatesAreAGauge() {
        String q = "stats-gauged";
        String id = "g" + UUID.randomUUID();
        push(q, id);
        flusher.flush().await().indefinitely();
        gauges.refresh().await().indefinitely();
        double before = registry.get("exactly.queue.duplicates").tag("queue", q).gauge().value();

        push(q, id, id);
        flusher.flush().await().indefinitely();
        gauges.refresh().await().indefinitely();

        assertEquals(before + 2, registry.get("exactly.queue.duplicates").tag("queue", q).gauge().value());
        String scrape = api().get("/q/metrics").then().statusCode(200).extract().asString();
        assertTrue(scrape.contains("exactly_queue_duplicates{queue=\"stats-gauged\"}"), scrape.length() + " chars");
    }
}
