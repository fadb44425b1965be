package dev.exactly.destination;

import static dev.exactly.destination.DestinationFixtures.await;
import static dev.exactly.destination.DestinationFixtures.create;
import static dev.exactly.destination.DestinationFixtures.deleteAll;
import static dev.exactly.destination.DestinationFixtures.destinations;
import static dev.exactly.destination.DestinationFixtures.fresh;
import static dev.exactly.destination.DestinationFixtures.push;
import static dev.exactly.destination.DestinationFixtures.receiverUrl;
import static dev.exactly.destination.DestinationFixtures.startReceiver;
import static dev.exactly.destination.DestinationFixtures.stopReceiver;
import static dev.exactly.testing.Api.api;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.sun.net.httpserver.HttpServer;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A redrive of a destination's dead letter asked for while an earlier redrive of it is still
 * sending, with the real PostgreSQL and a loopback receiver: the earlier one failing does not drop
 * the later request, which sends the message again.
 */
@QuarkusTest
class DestinationRedriveAgainTest {

    @Inject
    Pool pool;

    HttpServer server;
    /** Requests received so far. */
    final AtomicInteger requests = new AtomicInteger();
    /** How the receiver answers request n (1-based): 1 fails, 2 hangs until {@link #letGo} and fails, then 200. */
    final CountDownLatch hanging = new CountDownLatch(1);
    final CountDownLatch letGo = new CountDownLatch(1);

    @BeforeEach
    void receiver() throws Exception {
        server = startReceiver(4, ex -> {
            ex.getRequestBody().readAllBytes();
            int n = requests.incrementAndGet();
            if (n == 2) {
                hanging.countDown();
                try {
                    letGo.await(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            ex.sendResponseHeaders(n <= 2 ? 503 : 200, -1);
            ex.close();
        });
    }

    @AfterEach
    void stop() {
        letGo.countDown();
        stopReceiver(server);
        deleteAll(pool);
    }

    @Test
    void aRedriveAskedForWhileAnEarlierOneSendsIsNotDropped() throws Exception {
        String queue = fresh("redrive-again");
        String name = fresh("again");
        create(queue, name, "{\"url\":\"" + receiverUrl(server, "/hook") + "\",\"maxAttempts\":1,\"timeoutMs\":30000}");
        String id = push(queue, "p0", "t-0", "{\"n\":0}");
        await("dead-lettered after its one attempt", () -> destinations(queue).getInt("destinations[0].state.deadLetters") == 1);

        String redrive = "/api/v1/queues/" + queue + "/destinations/" + name + "/redrive";
        api().body("{\"messageIds\":[\"" + id + "\"]}").post(redrive).then().statusCode(200)
                .body("redriven", Matchers.contains(id));
        hanging.await(20, TimeUnit.SECONDS); // the first redrive's attempt is in flight
        // the receiver is fixed meanwhile: the operator asks for the redrive again, and it is answered as asked for
        api().body("{\"messageIds\":[\"" + id + "\"]}").post(redrive).then().statusCode(200)
                .body("redriven", Matchers.contains(id));
        Thread.sleep(1500); // three rounds of the timer: the dead letter being sent is not sent a second time beside it
        assertEquals(2, requests.get(), "no second send while the first redrive's attempt is in flight");
        letGo.countDown(); // the first redrive's attempt fails (its last)

        await("the second redrive sent the message again", Duration.ofSeconds(10), () -> requests.get() >= 3);
        assertEquals(3, requests.get(), "the second redrive sent the message again");
        await("delivered: no longer a dead letter", () -> destinations(queue).getInt("destinations[0].state.deadLetters") == 0);
    }
}
