package dev.exactly.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.net.URL;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A request abandoned at its deadline does not leave its statement behind: a push blocked on its
 * partition's row lock, which another session holds longer than the request's deadline (22 s,
 * below the lock and statement timeouts of 60 s here, {@link DeadlineProfile}), is answered 503
 * {@code /problems/database-timeout} within the deadline, and its backend stops waiting for the
 * lock at once (a cancel request), while the other session still holds it: nothing of the
 * request is left in the database. Its retry, once the lock is gone, is stored once.
 */
@QuarkusTest
@TestProfile(DeadlineProfile.class)
class DeadlineCancellationTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TestHTTPResource("/")
    URL base;

    private final RestartablePostgres pg = RestartablePostgres.shared();

    private static String push(String queue, String txn) {
        return "{\"items\":[{\"queue\":\"" + queue + "\",\"partition\":\"held\",\"transactionId\":\"" + txn
                + "\",\"payload\":1}]}";
    }

    private static long waitingForLocks(Connection c) throws Exception {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity "
                + "WHERE datname = current_database() AND application_name = 'exactly' AND wait_event_type = 'Lock'")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void aStatementWaitingForALockPastTheDeadlineIsCancelled() throws Exception {
        String q = "cancel-" + UUID.randomUUID().toString().substring(0, 8);
        ServiceHttp service = new ServiceHttp(base);
        assertEquals(200, service.send("POST", "/api/v1/push", push(q, "first")).statusCode());
        try (Connection holder = pg.connect(RestartablePostgresProfile.DATABASE);
             Connection observer = pg.connect(RestartablePostgresProfile.DATABASE)) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.execute("SELECT 1 FROM exactly.partitions p JOIN exactly.queues q ON q.id = p.queue_id "
                        + "WHERE q.name = '" + q + "' AND p.name = 'held' FOR UPDATE OF p");
            }
            long start = System.nanoTime();
            CompletableFuture<HttpResponse<String>> blocked = CompletableFuture.supplyAsync(() -> {
                try {
                    return service.send("POST", "/api/v1/push", push(q, "blocked"));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (waitingForLocks(observer) == 0 && System.nanoTime() < until) {
                Thread.sleep(20);
            }
            assertEquals(1, waitingForLocks(observer), "the push waits for the partition's lock");

            HttpResponse<String> r = blocked.get(90, TimeUnit.SECONDS);
            long took = (System.nanoTime() - start) / 1_000_000;
            assertEquals(503, r.statusCode(), r.body());
            assertTrue(took <= DeadlineProfile.DEADLINE_MS + 500, "answered after " + took + " ms");
            JsonNode problem = JSON.readTree(r.body());
            assertEquals("/problems/database-timeout", problem.get("type").asText());
            assertTrue(r.headers().firstValue("Retry-After").isPresent());

            // the abandoned statement is gone at once, while the lock is still held
            long gone = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (waitingForLocks(observer) > 0 && System.nanoTime() < gone) {
                Thread.sleep(20);
            }
            assertEquals(0, waitingForLocks(observer), "the push's statement still waits for the lock");
            try (Statement s = holder.createStatement(); ResultSet rs = s.executeQuery("SELECT 1")) {
                assertTrue(rs.next(), "the holder's transaction is still open");
            }
            holder.rollback();
        }
        HttpResponse<String> retry = service.send("POST", "/api/v1/push", push(q, "blocked"));
        assertEquals(200, retry.statusCode(), retry.body());
        assertEquals("queued", JSON.readTree(retry.body()).at("/results/0/status").asText());
        assertEquals("duplicate", JSON.readTree(service.send("POST", "/api/v1/push", push(q, "blocked")).body())
                .at("/results/0/status").asText());
    }
}
