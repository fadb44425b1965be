package dev.exactly.destination;

import static dev.exactly.destination.DestinationFixtures.deleteAll;
import static dev.exactly.destination.DestinationFixtures.fresh;
import static dev.exactly.destination.DestinationFixtures.push;
import static dev.exactly.destination.DestinationFixtures.receiverUrl;
import static dev.exactly.destination.DestinationFixtures.startReceiver;
import static dev.exactly.destination.DestinationFixtures.stopReceiver;
import static dev.exactly.testing.Api.api;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One destination's failing receiver against another destination's healthy one, in the server
 * shape, with the real PostgreSQL and loopback receivers: the healthy destination's messages are
 * delivered while the failing one's partitions wait for their retries.
 */
@QuarkusTest
class DestinationIsolationTest {

    /** exactly.delivery.workers as the test profile leaves it (its default). */
    static final int WORKERS = 8;
    /** exactly.delivery.batch as the test profile leaves it (its default). */
    static final int BATCH = 32;

    @Inject
    Pool pool;

    HttpServer failing;
    HttpServer healthy;
    /** The partitions the failing receiver got a request of. */
    final Set<String> failingPartitions = ConcurrentHashMap.newKeySet();
    final AtomicInteger healthyReceived = new AtomicInteger();
    final AtomicInteger failingRequests = new AtomicInteger();

    @BeforeEach
    void receivers() throws Exception {
        failing = startReceiver(64, ex -> {
            ex.getRequestBody().readAllBytes();
            failingPartitions.add(ex.getRequestHeaders().getFirst("Exactly-Partition"));
            failingRequests.incrementAndGet();
            ex.sendResponseHeaders(503, -1);
            ex.close();
        });
        healthy = startReceiver(2, ex -> {
            ex.getRequestBody().readAllBytes();
            healthyReceived.incrementAndGet();
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
    }

    @AfterEach
    void stop() {
        deleteAll(pool);
        stopReceiver(failing);
        stopReceiver(healthy);
    }

    @Test
    void aDestinationWhoseReceiverIsDownDoesNotHoldBackAnother() throws Exception {
        isolated(true, 1);
    }

    /** Unordered: each message of a batch on a thread of its own, so the down one holds workers x batch of them. */
    @Test
    void anUnorderedDestinationWhoseReceiverIsDownDoesNotHoldBackAnother() throws Exception {
        isolated(false, BATCH);
    }

    /**
     * Two destinations of one receiver (its host and port): one whose answers take 15 s, with a whole
     * batch of each of its partitions in flight (every connection of a client's pool to that server),
     * and another; the other's message arrives at once.
     */
    @Test
    void aSlowReceiverHoldsNoConnectionAnotherDestinationOfTheSameServerNeeds() throws Exception {
        AtomicInteger slowInFlight = new AtomicInteger();
        HttpServer shared = startReceiver(WORKERS * BATCH + 16, ex -> {
            ex.getRequestBody().readAllBytes();
            if (ex.getRequestURI().getPath().startsWith("/slow")) {
                slowInFlight.incrementAndGet();
                try {
                    Thread.sleep(15_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            } else {
                healthyReceived.incrementAndGet();
            }
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        try {
            String slow = fresh("iso-slow");
            String slowName = fresh("slow");
            api().body("{\"url\":\"" + receiverUrl(shared, "/slow") + "\",\"timeoutMs\":30000,\"ordered\":false}")
                    .put("/api/v1/queues/" + slow + "/destinations/" + slowName).then().statusCode(201);
            api().post("/api/v1/queues/" + slow + "/destinations/" + slowName + "/pause").then().statusCode(204);
            for (int p = 0; p < WORKERS; p++) {
                for (int k = 0; k < BATCH; k++) {
                    push(slow, "p" + p, "s-" + p + "-" + k, "{\"p\":" + p + "}");
                }
            }
            api().post("/api/v1/queues/" + slow + "/destinations/" + slowName + "/resume").then().statusCode(204);
            long end = System.nanoTime() + 10_000_000_000L;
            while (slowInFlight.get() < WORKERS * BATCH && System.nanoTime() < end) {
                Thread.sleep(20);
            }
            assertTrue(slowInFlight.get() >= WORKERS * BATCH, "the slow destination's batches are in flight: " + slowInFlight);

            String fast = fresh("iso-fast");
            api().body("{\"url\":\"" + receiverUrl(shared, "/fast") + "\"}")
                    .put("/api/v1/queues/" + fast + "/destinations/" + fresh("fast")).then().statusCode(201);
            push(fast, "p0", "t-fast", "{\"fast\":true}");
            end = System.nanoTime() + 5_000_000_000L;
            while (healthyReceived.get() == 0 && System.nanoTime() < end) {
                Thread.sleep(20);
            }
            assertTrue(healthyReceived.get() > 0, "the other destination's message arrived within 5 s while the slow one's "
                    + WORKERS * BATCH + " requests to the same server wait for their answers (15 s)");
        } finally {
            deleteAll(pool);
            stopReceiver(shared);
        }
    }

    private void isolated(boolean ordered, int perPartition) throws Exception {
        String down = fresh("iso-down");
        String downName = fresh("down");
        api().body("{\"url\":\"" + receiverUrl(failing, "/down") + "\",\"maxAttempts\":100,\"backoffMs\":20000,"
                        + "\"backoffCapMs\":20000,\"timeoutMs\":2000,\"ordered\":" + ordered + "}")
                .put("/api/v1/queues/" + down + "/destinations/" + downName).then().statusCode(201);
        // paused while the backlog is stored, so that each worker leases a whole batch of it at the resume
        api().post("/api/v1/queues/" + down + "/destinations/" + downName + "/pause").then().statusCode(204);
        for (int p = 0; p < WORKERS; p++) {
            for (int k = 0; k < perPartition; k++) {
                push(down, "p" + p, "t-" + p + "-" + k, "{\"p\":" + p + "}");
            }
        }
        api().post("/api/v1/queues/" + down + "/destinations/" + downName + "/resume").then().statusCode(204);
        long end = System.nanoTime() + 30_000_000_000L;
        while (failingRequests.get() < WORKERS * perPartition && System.nanoTime() < end) {
            Thread.sleep(20);
        }
        assertTrue(failingPartitions.size() >= WORKERS && failingRequests.get() >= WORKERS * perPartition,
                "each message of the failing destination got its attempt 1: " + failingRequests + " requests, partitions "
                        + failingPartitions);

        String up = fresh("iso-up");
        api().body("{\"url\":\"" + receiverUrl(healthy, "/up") + "\",\"ordered\":" + ordered + "}")
                .put("/api/v1/queues/" + up + "/destinations/" + fresh("up")).then().statusCode(201);
        push(up, "p0", "t-up", "{\"up\":true}");
        end = System.nanoTime() + 5_000_000_000L;
        while (healthyReceived.get() == 0 && System.nanoTime() < end) {
            Thread.sleep(20);
        }
        assertTrue(healthyReceived.get() > 0, "the healthy destination's message arrived within 5 s while the other "
                + "destination's " + WORKERS + " partitions wait for their retries (10 to 20 s each)");
    }
}
