package dev.exactly.destination;

import static dev.exactly.consume.ConsumeFixtures.age;
import static dev.exactly.consume.ConsumeFixtures.maintenance;
import static dev.exactly.consume.ConsumeFixtures.options;
import static dev.exactly.destination.DestinationFixtures.answering;
import static dev.exactly.destination.DestinationFixtures.await;
import static dev.exactly.destination.DestinationFixtures.create;
import static dev.exactly.destination.DestinationFixtures.deleteAll;
import static dev.exactly.destination.DestinationFixtures.destinations;
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
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A queue's retention against a destination that has not delivered yet, with the real PostgreSQL
 * and a loopback receiver: retention does not wait for destinations (docs/destinations.md, "The
 * rule"), so a message purged before its delivery is never sent, nor dead-lettered, nor pending.
 */
@QuarkusTest
class DestinationRetentionTest {

    @Inject
    Pool pool;

    HttpServer server;
    /** The Exactly-Offset of each request received. */
    final List<String> offsets = new CopyOnWriteArrayList<>();

    @BeforeEach
    void receiver() throws Exception {
        server = startReceiver(2, answering(200, ex -> offsets.add(ex.getRequestHeaders().getFirst("Exactly-Offset"))));
    }

    @AfterEach
    void stop() {
        stopReceiver(server);
        deleteAll(pool);
    }

    @Test
    void aMessagePurgedBeforeItsDeliveryIsNeverSent() throws Exception {
        String queue = fresh("dest-retention");
        String name = fresh("behind");
        create(queue, name, "{\"url\":\"" + receiverUrl(server, "/hook") + "\"}");
        pause(queue, name);
        push(queue, "p0", "t-0", "{\"n\":0}");
        options(queue, Map.of("retentionSeconds", 60));
        age(pool, queue, "p0", 0, 0, 120, true, false);
        maintenance();
        resume(queue, name);
        push(queue, "p0", "t-1", "{\"n\":1}");
        await("the message stored after the purge", () -> offsets.contains("1"));
        Thread.sleep(500);
        assertEquals(List.of("1"), offsets, "offset 0 was purged before the destination sent it: never sent");
        var state = destinations(queue);
        assertEquals(0, state.getInt("destinations[0].state.deadLetters"), "nor dead-lettered");
        assertEquals(0, state.getInt("destinations[0].state.pending"), "nor pending");
    }
}
