package dev.exactly.destination;

import static dev.exactly.destination.DestinationFixtures.answering;
import static dev.exactly.destination.DestinationFixtures.await;
import static dev.exactly.destination.DestinationFixtures.create;
import static dev.exactly.destination.DestinationFixtures.deleteAll;
import static dev.exactly.destination.DestinationFixtures.fresh;
import static dev.exactly.destination.DestinationFixtures.pause;
import static dev.exactly.destination.DestinationFixtures.push;
import static dev.exactly.destination.DestinationFixtures.receiverUrl;
import static dev.exactly.destination.DestinationFixtures.resume;
import static dev.exactly.destination.DestinationFixtures.startReceiver;
import static dev.exactly.destination.DestinationFixtures.stopReceiver;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.time.Duration;
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
        failing = startReceiver(64, answering(503, ex -> {
            failingPartitions.add(ex.getRequestHeaders().getFirst("Exactly-Partition"));
            failingRequests.incrementAndGet();
        }));
        healthy = startReceiver(2, answering(200, ex -> healthyReceived.incrementAndGet()));
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
            create(slow, slowName, "{\"url\":\"" + receiverUrl(shared, "/slow") + "\",\"timeoutMs\":30000,\"ordered\":false}");
            pause(slow, slowName);
            for (int p = 0; p < WORKERS; p++) {
                for (int k = 0; k < BATCH; k++) {
                    push(slow, "p" + p, "s-" + p + "-" + k, "{\"p\":" + p + "}");
                }
            }
            resume(slow, slowName);
            await("the slow destination's " + WORKERS * BATCH + " requests in flight", Duration.ofSeconds(10),
                    () -> slowInFlight.get() >= WORKERS * BATCH);

            String fast = fresh("iso-fast");
            create(fast, fresh("fast"), "{\"url\":\"" + receiverUrl(shared, "/fast") + "\"}");
            push(fast, "p0", "t-fast", "{\"fast\":true}");
            await("the other destination's message arrived while the slow one's " + WORKERS * BATCH
                    + " requests to the same server wait for their answers (15 s)", Duration.ofSeconds(5), () -> healthyReceived.get() > 0);
        } finally {
            deleteAll(pool);
            stopReceiver(shared);
        }
    }

    private void isolated(boolean ordered, int perPartition) throws Exception {
        String down = fresh("iso-down");
        String downName = fresh("down");
        create(down, downName, "{\"url\":\"" + receiverUrl(failing, "/down") + "\",\"maxAttempts\":100,\"backoffMs\":20000,"
                + "\"backoffCapMs\":20000,\"timeoutMs\":2000,\"ordered\":" + ordered + "}");
        // paused while the backlog is stored, so that each worker leases a whole batch of it at the resume
        pause(down, downName);
        for (int p = 0; p < WORKERS; p++) {
            for (int k = 0; k < perPartition; k++) {
                push(down, "p" + p, "t-" + p + "-" + k, "{\"p\":" + p + "}");
            }
        }
        resume(down, downName);
        await("each message of the failing destination got its attempt 1", Duration.ofSeconds(30),
                () -> failingRequests.get() >= WORKERS * perPartition);
        assertTrue(failingPartitions.size() >= WORKERS, "each partition of the failing destination got its attempt 1: "
                + failingPartitions);

        String up = fresh("iso-up");
        create(up, fresh("up"), "{\"url\":\"" + receiverUrl(healthy, "/up") + "\",\"ordered\":" + ordered + "}");
        push(up, "p0", "t-up", "{\"up\":true}");
        await("the healthy destination's message arrived while the other destination's " + WORKERS
                + " partitions wait for their retries (10 to 20 s each)", Duration.ofSeconds(5), () -> healthyReceived.get() > 0);
    }
}
