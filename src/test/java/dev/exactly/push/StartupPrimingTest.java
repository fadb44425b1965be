package dev.exactly.push;

import static dev.exactly.testing.Api.api;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.AppDatabase;
import dev.exactly.testing.TableRows;
import io.quarkus.arc.Arc;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The server primes the push path in memory when it starts ({@code dev.exactly.server.StartupPriming},
 * {@link HotPathPriming}; the tests' {@code exactly.priming.rounds} is small): it ran before the
 * service answered, it writes nothing to the database (no row, no sequence value, no offset
 * allocated, no queue or partition named after its item), it leaves the warm cache without the item
 * it primed with, and the service answers pushes correctly after it.
 */
@QuarkusTest
class StartupPrimingTest {

    @Test
    void theStartPrimedThePushPathWritingNothingAndThePushesAfterItAreAnsweredRight() throws SQLException {
        HotPathPriming priming = Arc.container().instance(HotPathPriming.class).get();
        assertNotNull(priming, "no priming in this build (the bean is removed when nothing uses it)");
        assertTrue(priming.rounds() > 0, "the tests prime a few rounds");
        assertTrue(priming.roundsRun() >= priming.rounds(), "the start primed the push path: " + priming.roundsRun());

        Map<String, Long> before = footprint();
        long bytes = priming.prime(false, "test");
        assertTrue(bytes > 0, "the rounds encoded the push's arguments and answers");
        assertEquals(before, footprint(), "what priming changed in the database");
        assertEquals(0L, before.get("queue priming"), "the priming's queue exists");

        // the priming's own item, pushed for real: new to the database and to the warm cache
        String item = "{\"items\":[{\"queue\":\"priming\",\"transactionId\":\"t-1\",\"payload\":{\"n\":1,\"s\":\"text\"}}]}";
        JsonPath first = api().body(item).post("/api/v1/push").then().statusCode(200).extract().jsonPath();
        assertEquals("queued", first.getString("results[0].status"));
        JsonPath again = api().body(item).post("/api/v1/push").then().statusCode(200).extract().jsonPath();
        assertEquals("duplicate", again.getString("results[0].status"));
        assertEquals(first.getString("results[0].messageId"), again.getString("results[0].messageId"));
        JsonPath next = api().body(item.replace("t-1", "t-2")).post("/api/v1/push").then().statusCode(200).extract().jsonPath();
        assertEquals("queued", next.getString("results[0].status"));
        Map<String, Long> after = footprint();
        assertEquals(before.get("offsets allocated") + 2, after.get("offsets allocated"), "offsets 0 and 1 of the new partition");
        assertEquals(before.get("messages") + 2, after.get("messages"), "the two queued messages stored");
        api().body("{\"items\":[{\"queue\":\"priming\",\"payload\":1,\"transactionID\":\"t\"}]}").post("/api/v1/push")
                .then().statusCode(400).contentType("application/problem+json");
    }

    /** Rows per table, each sequence's last value, the partitions' allocated offsets and the priming queue's rows. */
    private static Map<String, Long> footprint() throws SQLException {
        try (Connection c = AppDatabase.connect()) {
            Map<String, Long> out = new TreeMap<>(TableRows.of(c));
            try (Statement s = c.createStatement()) {
                try (ResultSet r = s.executeQuery("SELECT sequencename, coalesce(last_value, 0) FROM pg_sequences"
                        + " WHERE schemaname = 'exactly'")) {
                    while (r.next()) {
                        out.put("sequence " + r.getString(1), r.getLong(2));
                    }
                }
                try (ResultSet r = s.executeQuery("SELECT coalesce(sum(last_offset + 1), 0) FROM exactly.partitions")) {
                    r.next();
                    out.put("offsets allocated", r.getLong(1));
                }
                try (ResultSet r = s.executeQuery("SELECT count(*) FROM exactly.queues WHERE name = 'priming'")) {
                    r.next();
                    out.put("queue priming", r.getLong(1));
                }
            }
            return out;
        }
    }
}
