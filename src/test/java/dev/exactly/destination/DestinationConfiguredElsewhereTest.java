package dev.exactly.destination;

import static dev.exactly.destination.DestinationFixtures.await;
import static dev.exactly.destination.DestinationFixtures.deleteAll;
import static dev.exactly.destination.DestinationFixtures.fresh;
import static dev.exactly.destination.DestinationFixtures.push;
import static dev.exactly.destination.DestinationFixtures.receiverUrl;
import static dev.exactly.destination.DestinationFixtures.startReceiver;
import static dev.exactly.destination.DestinationFixtures.stopReceiver;
import static dev.exactly.testing.Api.api;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.exactly.consume.ConsumeRepository;
import dev.exactly.queue.QueueStatsRepository;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two instances on one database, one of which configures a destination (as during a rolling
 * deploy that adds it), against the real PostgreSQL and a loopback receiver. Instance A is a second
 * {@link Dispatcher} built here with a configuration that defines the destination; instance B is
 * the application under test, whose configuration does not, answering the API. While A runs (its
 * mark on the destination's figures row is live), B refuses a PUT and a DELETE of that name with
 * 409 and writes nothing, and A delivers every message stored meanwhile with its own settings; once
 * no instance marked it for {@link DestinationRepository#CONFIGURED_LIVE_MS} (its configuration
 * removed everywhere), a DELETE removes the rows it left, as before.
 */
@QuarkusTest
class DestinationConfiguredElsewhereTest {

    @Inject
    Pool pool;
    @Inject
    DeliveryConfig delivery;
    @Inject
    DestinationRepository repository;
    @Inject
    ConsumeRepository consume;
    @Inject
    QueueStatsRepository stats;
    @Inject
    io.vertx.core.Vertx vertx;
    @Inject
    Instance<MeterRegistry> registry;
    @Inject
    DrainRepository drains;
    @Inject
    Instance<DrainTrigger> trigger;

    HttpServer server;
    /** Each request received: its path, its Exactly-Transaction-Id, and whether it was signed. */
    final List<String> received = new CopyOnWriteArrayList<>();
    /** Instance A: a dispatcher whose configuration defines the destination. */
    Dispatcher a;
    String queue;
    String name;

    @BeforeEach
    void start() throws Exception {
        server = startReceiver(4, ex -> {
            ex.getRequestBody().readAllBytes();
            received.add(ex.getRequestURI().getPath() + " " + ex.getRequestHeaders().getFirst("Exactly-Transaction-Id") + " "
                    + (ex.getRequestHeaders().getFirst("webhook-signature") != null ? "signed" : "unsigned"));
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        queue = fresh("cfg-elsewhere");
        name = fresh("cfg");
        a = instanceA();
        a.onStart(null);
        await("A started its configured destination (its figures row)", () -> figuresRows() == 1);
    }

    @AfterEach
    void stop() {
        if (a != null) {
            a.onStop(null);
        }
        stopReceiver(server);
        deleteAll(pool);
        // the rows A's configured destination left
        for (String sql : List.of("DELETE FROM exactly.consumer_cursors WHERE consumer_group = 'destination:' || $1",
                "DELETE FROM exactly.deliveries WHERE consumer_group = 'destination:' || $1",
                "DELETE FROM exactly.destination_state WHERE name = $1")) {
            pool.preparedQuery(sql).execute(Tuple.of(name)).await().indefinitely();
        }
    }

    /**
     * A PUT of the name through B while A configures it: 409 problem+json (the configured-name
     * conflict), no API destination written; what is stored meanwhile goes to A's URL, unsigned as
     * A's configuration says, never to the URL the PUT asked for.
     */
    @Test
    void aPutThroughAnInstanceWithoutTheConfigurationIsRefused() throws Exception {
        Response put = api().body("{\"url\":\"" + receiverUrl(server, "/other") + "\",\"ordered\":false}")
                .put("/api/v1/queues/" + queue + "/destinations/" + name);
        assertEquals(409, put.statusCode(), put.asString());
        assertEquals("application/problem+json", put.contentType().split(";")[0]);
        assertTrue(put.asString().contains("destination-conflict"), put.asString());
        assertEquals(0L, count("SELECT count(*) FROM exactly.destinations WHERE name = $1"), "no API destination written");
        assertEquals(1L, figuresRows(), "the figures row kept");
        String got = api().get("/api/v1/queues/" + queue + "/destinations/" + name).then().statusCode(404).extract().asString();
        assertTrue(got.contains("the configuration of another instance defines it"), got);
        for (int i = 0; i < 5; i++) {
            push(queue, "p" + (i % 2), "t" + i, "{}");
        }
        await("A delivered the 5 messages", () -> received.size() >= 5);
        Thread.sleep(500); // a second delivery (to /other) would arrive by now
        assertEquals(5, received.size(), received.toString());
        assertTrue(received.stream().allMatch(r -> r.startsWith("/hook ") && r.endsWith(" unsigned")), received.toString());
    }

    /**
     * A DELETE of the name through B while A configures it: 409, the figures row and the cursors
     * kept, and the messages stored after it still delivered by A.
     */
    @Test
    void aDeleteThroughAnInstanceWithoutTheConfigurationIsRefused() throws Exception {
        push(queue, "p0", "before", "{}");
        await("A delivered the first message", () -> received.size() == 1);
        long cursors = count("SELECT count(*) FROM exactly.consumer_cursors WHERE consumer_group = 'destination:' || $1");
        assertTrue(cursors > 0, "A's group has its cursors");
        Response delete = api().delete("/api/v1/queues/" + queue + "/destinations/" + name);
        assertEquals(409, delete.statusCode(), delete.asString());
        assertTrue(delete.asString().contains("destination-conflict"), delete.asString());
        assertEquals(1L, figuresRows(), "the figures row kept");
        assertEquals(cursors, count("SELECT count(*) FROM exactly.consumer_cursors WHERE consumer_group = 'destination:' || $1"),
                "the cursors kept");
        for (int i = 0; i < 6; i++) {
            push(queue, "p" + (i % 3), "after" + i, "{}");
        }
        await("A delivered the 6 messages stored after the DELETE", () -> received.size() >= 7);
        assertEquals(7, received.size(), received.toString());
    }

    /**
     * Once no instance has marked the destination for the liveness time (A stopped, its
     * configuration removed everywhere), a DELETE through B removes the rows it left: 204, as before.
     */
    @Test
    void aStaleMarkLetsTheDeleteRemoveTheLeftovers() throws Exception {
        push(queue, "p0", "before", "{}");
        await("A delivered the first message", () -> received.size() == 1);
        a.onStop(null);
        a = null;
        pool.preparedQuery("UPDATE exactly.destination_state SET configured_at = clock_timestamp() - interval '1 hour' "
                + "WHERE name = $1").execute(Tuple.of(name)).await().indefinitely();
        api().delete("/api/v1/queues/" + queue + "/destinations/" + name).then().statusCode(204);
        assertEquals(0L, figuresRows(), "the figures row deleted");
        assertEquals(0L, count("SELECT count(*) FROM exactly.consumer_cursors WHERE consumer_group = 'destination:' || $1"),
                "the cursors deleted");
    }

    /**
     * A mark gone stale while A still runs (A could not reach the database for the liveness time):
     * a DELETE through B removes the rows, and A starts the destination again with its next mark,
     * within {@link DestinationRepository#CONFIGURED_MARK_EVERY_MS}, at the end of each partition;
     * what is stored after that is delivered, and the mark is live again (B refuses a DELETE).
     */
    @Test
    void aRunningInstanceStartsItsDestinationAgainAfterAStaleDelete() throws Exception {
        push(queue, "p0", "before", "{}");
        await("A delivered the first message", () -> received.size() == 1);
        pool.preparedQuery("UPDATE exactly.destination_state SET configured_at = clock_timestamp() - interval '1 hour' "
                + "WHERE name = $1").execute(Tuple.of(name)).await().indefinitely();
        api().delete("/api/v1/queues/" + queue + "/destinations/" + name).then().statusCode(204);
        assertEquals(0L, figuresRows(), "the figures row deleted");
        await("A started it again with its next mark", java.time.Duration.ofMillis(
                DestinationRepository.CONFIGURED_MARK_EVERY_MS + 10_000), () -> figuresRows() == 1);
        assertEquals(1L, count("SELECT count(*) FROM exactly.destination_state WHERE name = $1 AND configured_at IS NOT NULL"),
                "marked");
        push(queue, "p0", "after", "{}");
        await("A delivered the message stored after its new start", () -> received.size() == 2);
        assertTrue(received.get(1).startsWith("/hook after "), received.toString());
        api().delete("/api/v1/queues/" + queue + "/destinations/" + name).then().statusCode(409);
    }

    /**
     * A configured destination takes over an API destination of its name on its queue for good: the
     * API destination's row is deleted at the configured start (its figures and cursors kept as the
     * configured one's), so that once the configuration is gone everywhere (A stopped, its mark
     * stale) the name is a removed destination's leftovers: not listed, nothing sent to the API
     * destination's URL, unsigned, as it was before the configuration took it.
     */
    @Test
    void aConfigurationTakesAnApiDestinationOverForGood() throws Exception {
        a.onStop(null);
        a = null;
        pool.preparedQuery("UPDATE exactly.destination_state SET configured_at = clock_timestamp() - interval '1 hour' "
                + "WHERE name = $1").execute(Tuple.of(name)).await().indefinitely();
        api().delete("/api/v1/queues/" + queue + "/destinations/" + name).then().statusCode(204);
        api().body("{\"url\":\"" + receiverUrl(server, "/api") + "\"}").put("/api/v1/queues/" + queue + "/destinations/" + name)
                .then().statusCode(201);
        push(queue, "p0", "api", "{}");
        await("the API destination delivered", () -> received.size() == 1);
        assertTrue(received.get(0).startsWith("/api api "), received.toString());

        Dispatcher again = instanceA();
        again.onStart(null);
        try {
            await("the configured start took the API destination over",
                    () -> count("SELECT count(*) FROM exactly.destinations WHERE name = $1") == 0);
            assertEquals(1L, figuresRows(), "the figures row kept");
            Thread.sleep(1_500); // B's next timer rounds: it forgets the API destination it delivered
            push(queue, "p0", "configured", "{}");
            await("delivered with the configuration's settings", () -> received.size() == 2);
            assertTrue(received.get(1).startsWith("/hook configured "), received.toString());
        } finally {
            again.onStop(null);
        }
        pool.preparedQuery("UPDATE exactly.destination_state SET configured_at = clock_timestamp() - interval '1 hour' "
                + "WHERE name = $1").execute(Tuple.of(name)).await().indefinitely();
        api().get("/api/v1/queues/" + queue + "/destinations/" + name).then().statusCode(404);
        push(queue, "p0", "after", "{}");
        Thread.sleep(1_500); // the application's timer rounds: a send to /api would arrive by now
        assertEquals(2, received.size(), "nothing sent once the configuration is gone: " + received);
    }

    /** A dispatcher (instance A) whose configuration defines the destination {@link #name} on {@link #queue}, to {@code /hook}. */
    private Dispatcher instanceA() {
        Map<String, DestinationsConfig.Destination> all = Map.of(name,
                new ConfiguredDestinationsTest.Keys(queue, "http", Map.of("url", receiverUrl(server, "/hook"))));
        return new Dispatcher(delivery, new ConfiguredDestinations(() -> all, delivery, Map.of()), repository, consume, stats,
                vertx, registry, drains, trigger);
    }

    private long figuresRows() {
        return count("SELECT count(*) FROM exactly.destination_state WHERE name = $1");
    }

    private long count(String sql) {
        return pool.preparedQuery(sql).execute(Tuple.of(name)).await().indefinitely().iterator().next().getLong(0);
    }
}
