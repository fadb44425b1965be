package dev.exactly.destination;

import static dev.exactly.destination.DestinationFixtures.create;
import static dev.exactly.destination.DestinationFixtures.deleteAll;
import static dev.exactly.destination.DestinationFixtures.fresh;
import static dev.exactly.destination.DestinationFixtures.pause;
import static dev.exactly.destination.DestinationFixtures.push;
import static dev.exactly.destination.DestinationFixtures.receiverUrl;
import static dev.exactly.destination.DestinationFixtures.resume;
import static dev.exactly.destination.DestinationFixtures.startReceiver;
import static dev.exactly.destination.DestinationFixtures.stopReceiver;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.sun.net.httpserver.HttpServer;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Lambda shape's drains ({@link Dispatcher#drain}, delivery mode {@code invocation}) against the
 * real PostgreSQL and a loopback receiver: a retry that a drain left parked for a long backoff is
 * sent at once by the drain after a pause and a resume, as a resume ends a waiting retry in the
 * server shape (docs/destinations.md, "Retries, order and dead letters" and "Pause").
 */
@QuarkusTest
@TestProfile(DrainPauseResumeTest.Invocation.class)
class DrainPauseResumeTest {

    /** Delivery in invocations, as the Lambda package runs it. */
    public static class Invocation implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("exactly.delivery.mode", "invocation");
        }
    }

    @Inject
    Pool pool;

    @Inject
    Dispatcher dispatcher;

    HttpServer server;
    /** The Exactly-Attempt of each request received. */
    final List<String> attempts = new CopyOnWriteArrayList<>();
    /** While set, every request is answered 503 with Retry-After: 3600. */
    final AtomicBoolean down = new AtomicBoolean(true);

    @BeforeEach
    void receiver() throws Exception {
        server = startReceiver(4, ex -> {
            ex.getRequestBody().readAllBytes();
            attempts.add(ex.getRequestHeaders().getFirst("Exactly-Attempt"));
            if (down.get()) {
                ex.getResponseHeaders().add("Retry-After", "3600");
                ex.sendResponseHeaders(503, -1);
            } else {
                ex.sendResponseHeaders(200, -1);
            }
            ex.close();
        });
    }

    @AfterEach
    void stop() {
        stopReceiver(server);
        deleteAll(pool);
    }

    @Test
    void aResumeEndsTheWaitOfAParkedRetry() {
        String queue = fresh("drain-resume");
        String name = fresh("parked");
        create(queue, name, "{\"url\":\"" + receiverUrl(server, "/hook") + "\",\"timeoutMs\":2000}");
        push(queue, "p0", "t-1", "{\"n\":1}");

        dispatcher.drain(queue, System.currentTimeMillis() + 8_000);
        assertEquals(List.of("1"), attempts, "attempt 1 failed; its hour-long Retry-After parked the partition");
        assertEquals(1L, parked(name), "parked under its lease for a later drain");

        down.set(false); // the receiver is back: the operator pauses and resumes the destination
        pause(queue, name);
        resume(queue, name);
        dispatcher.drain(queue, System.currentTimeMillis() + 8_000);
        assertEquals(List.of("1", "2"), attempts, "the drain after the resume sends the parked message, attempt 2");
    }

    private long parked(String name) {
        return pool.preparedQuery("SELECT count(*) FROM exactly.destination_parked WHERE destination = $1")
                .execute(Tuple.of(name)).await().indefinitely().iterator().next().getLong(0);
    }
}
