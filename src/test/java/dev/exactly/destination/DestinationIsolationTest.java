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
import org.junit.jupiter.api.Disabled;
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

    @Inject
    Pool pool;

    HttpServer failing;
    HttpServer healthy;
    /** The partitions the failing receiver got a request of. */
    final Set<String> failingPartitions = ConcurrentHashMap.newKeySet();
    final AtomicInteger healthyReceived = new AtomicInteger();

    @BeforeEach
    void receivers() throws Exception {
        failing = startReceiver(WORKERS * 2, ex -> {
            ex.getRequestBody().readAllBytes();
            failingPartitions.add(ex.getRequestHeaders().getFirst("Exactly-Partition"));
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
    @Disabled("fails on main: the delivery workers are one pool of exactly.delivery.workers threads shared by every "
            + "destination, and a worker holds its thread through each backoff, so a destination with that many "
            + "partitions in retry holds back every other destination of the instance; a design choice left to the lead")
    void aDestinationWhoseReceiverIsDownDoesNotHoldBackAnother() throws Exception {
        String down = fresh("iso-down");
        api().body("{\"url\":\"" + receiverUrl(failing, "/down") + "\",\"maxAttempts\":100,\"backoffMs\":20000,"
                        + "\"backoffCapMs\":20000,\"timeoutMs\":2000}")
                .put("/api/v1/queues/" + down + "/destinations/" + fresh("down")).then().statusCode(201);
        for (int p = 0; p < WORKERS; p++) {
            push(down, "p" + p, "t-" + p, "{\"p\":" + p + "}");
        }
        long end = System.nanoTime() + 30_000_000_000L;
        while (failingPartitions.size() < WORKERS && System.nanoTime() < end) {
            Thread.sleep(20);
        }
        assertTrue(failingPartitions.size() >= WORKERS, "each partition of the failing destination got its attempt 1: "
                + failingPartitions);

        String up = fresh("iso-up");
        api().body("{\"url\":\"" + receiverUrl(healthy, "/up") + "\"}")
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
