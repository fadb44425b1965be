package dev.exactly.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.exactly.testing.Api;
import dev.exactly.testing.PostgresResource;
import dev.exactly.testing.TestDatabase;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * One stuck partition cannot hold the service: while a transaction holds one partition's row
 * lock, pushes to another partition of the same queue complete, and pushes that need the held
 * partition fail after lock_timeout with a clear 503
 * /problems/database-timeout and Retry-After, writing nothing; once the lock is gone the same
 * requests are stored exactly once. The service's sessions carry the configured limits.
 */
@QuarkusTest
class PartitionLockTimeoutTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TestHTTPResource("/")
    URL base;

    @Inject
    Pool pool;

    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> push(String body) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(URI.create(base.toString()).resolve("/api/v1/push"))
                .timeout(Duration.ofSeconds(60)).header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + Api.TEST_API_KEY)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return http.send(r, HttpResponse.BodyHandlers.ofString());
    }

    private static String item(String queue, String partition, String txn) {
        return "{\"queue\":\"" + queue + "\",\"partition\":\"" + partition + "\",\"transactionId\":\"" + txn
                + "\",\"payload\":1}";
    }

    private static String body(String... items) {
        return "{\"items\":[" + String.join(",", items) + "]}";
    }

    private static Connection jdbc() throws Exception {
        return DriverManager.getConnection(TestDatabase.jdbcUrl(PostgresResource.database), "postgres", "");
    }

    private static long stored(String queue, String partition) throws Exception {
        try (Connection c = jdbc(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT (SELECT count(*) FROM exactly.messages m WHERE m.partition_id = p.id) "
                        + "+ (SELECT count(*) FROM exactly.txn_hashes t WHERE t.partition_id = p.id) + p.last_offset + 1 "
                        + "FROM exactly.partitions p JOIN exactly.queues q ON q.id = p.queue_id "
                        + "WHERE q.name = '" + queue + "' AND p.name = '" + partition + "'")) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }

    private static long waitingOnLocks() throws Exception {
        try (Connection c = jdbc(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void theServiceSessionsCarryTheConfiguredLimits() {
        Row r = pool.query("SELECT current_setting('statement_timeout'), current_setting('lock_timeout'), "
                + "current_setting('idle_in_transaction_session_timeout'), current_setting('application_name')")
                .executeAndAwait().iterator().next();
        assertEquals("10s", r.getString(0));
        assertEquals("5s", r.getString(1));
        assertEquals("30s", r.getString(2));
        assertEquals("exactly", r.getString(3));
    }

    @Test
    void aHeldPartitionTimesOutCleanlyWhileAnotherPartitionIsServed() throws Exception {
        String q = "lock-" + UUID.randomUUID();
        assertEquals(200, push(body(item(q, "held", "h-0"), item(q, "free", "f-0"))).statusCode());
        long heldBefore = stored(q, "held");
        long freeBefore = stored(q, "free");
        try (Connection holder = jdbc()) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.execute("SELECT 1 FROM exactly.partitions p JOIN exactly.queues q ON q.id = p.queue_id "
                        + "WHERE q.name = '" + q + "' AND p.name = 'held' FOR UPDATE OF p");
            }
            // a push that needs the held partition (a multi-partition bundle that includes it is
            // covered at the engine level, ConnectionFaultsTest: in the server shape the fusion
            // lanes of this instance are in play too)
            CompletableFuture<HttpResponse<String>> alone = CompletableFuture.supplyAsync(
                    () -> unchecked(() -> push(body(item(q, "held", "h-1"), item(q, "held", "h-2")))));
            long until = System.currentTimeMillis() + 30_000;
            while (waitingOnLocks() < 1 && System.currentTimeMillis() < until) {
                Thread.sleep(20);
            }
            assertEquals(1, waitingOnLocks(), "the push that needs the held partition is not waiting");
            // meanwhile the free partition is served, one push after another
            long start = System.nanoTime();
            for (int i = 1; i <= 20; i++) {
                HttpResponse<String> r = push(body(item(q, "free", "f-" + i)));
                assertEquals(200, r.statusCode(), r.body());
                assertEquals("queued", JSON.readTree(r.body()).at("/results/0/status").asText());
            }
            long freeMs = (System.nanoTime() - start) / 1_000_000;
            assertTrue(freeMs < 10_000, "20 pushes to the free partition took " + freeMs + " ms");
            for (HttpResponse<String> r : List.of(alone.get(60, TimeUnit.SECONDS))) {
                assertEquals(503, r.statusCode(), r.body());
                assertTrue(r.headers().firstValue("Retry-After").isPresent(), "Retry-After");
                assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json"));
                JsonNode p = JSON.readTree(r.body());
                assertEquals("/problems/database-timeout", p.get("type").asText());
                assertEquals(503, p.get("status").asInt());
            }
            assertEquals(heldBefore, stored(q, "held"), "a timed-out push wrote to the held partition");
            assertEquals(freeBefore + 20 * 3, stored(q, "free"));
            holder.rollback();
        }
        // the lock is gone: the same requests are stored once, then answered duplicate
        String retryAlone = body(item(q, "held", "h-1"), item(q, "held", "h-2"));
        JsonNode first = JSON.readTree(push(retryAlone).body());
        assertEquals("queued", first.at("/results/0/status").asText());
        JsonNode again = JSON.readTree(push(retryAlone).body());
        assertEquals("duplicate", again.at("/results/1/status").asText());
        assertEquals(first.at("/results/1/messageId"), again.at("/results/1/messageId"));
        assertEquals(heldBefore + 2 * 3, stored(q, "held"));
    }

    private interface Call<T> {
        T call() throws Exception;
    }

    private static <T> T unchecked(Call<T> c) {
        try {
            return c.call();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
