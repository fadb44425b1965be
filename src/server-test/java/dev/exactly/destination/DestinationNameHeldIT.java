package dev.exactly.destination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.exactly.server.PackagedServer;
import dev.exactly.server.PackagedServers;
import dev.exactly.testing.TestDatabase;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Destination names are unique across queues (docs/destinations.md, "Define a destination"). A
 * destination defined through the API on one queue, then a restart whose configuration defines the
 * same name on another queue: the configured one is not started (an ERROR in the log naming its
 * key, "not started" in its list entry), and the API one goes on delivering what its queue stores,
 * its GET answering 200 and its figures its own; DELETE of the API one is answered 204, and the
 * configured one then starts, delivering what its queue stores from then on. A destination moved to
 * another queue in the configuration is held by the rows it left on the first queue the same way,
 * until a DELETE of its name there drops them. Run on the packaged server, as a user restarts it.
 */
class DestinationNameHeldIT {

    private static final String KEY = "exactly-name-held-test-key";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One request the receiver got: its path (the destination's) and its webhook-id. */
    record Arrival(String path, String id) {
    }

    @RegisterExtension
    final PackagedServers servers = new PackagedServers();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final List<Arrival> arrivals = new CopyOnWriteArrayList<>();
    private HttpServer receiver;

    @AfterEach
    void stop() {
        if (receiver != null) {
            receiver.stop(0);
        }
    }

    @Test
    void aConfiguredNameHeldOnAnotherQueueWaitsForItsDeleteAndTheHolderKeepsDelivering() throws Exception {
        startReceiver();
        String db = TestDatabase.createDatabase();
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String apiQueue = "held-api-" + suffix;
        String cfgQueue = "held-cfg-" + suffix;
        String name = "held" + suffix;

        PackagedServer first = start(db, Map.of());
        assertEquals(201, send(first, "PUT", "/api/v1/queues/" + apiQueue + "/destinations/" + name,
                "{\"url\":\"" + receiverUrl("api") + "\"}").statusCode());
        String before = push(first, apiQueue, "before");
        await("the API destination delivers", () -> arrived("/api", before));
        // its ack recorded before the stop (a stop that cuts an ack sends that message again)
        await("the delivery recorded", () -> delivered(first, apiQueue, name) == 1);
        first.stop();

        Map<String, String> config = Map.of(
                "EXACTLY_DESTINATIONS_" + name.toUpperCase() + "_QUEUE", cfgQueue,
                "EXACTLY_DESTINATIONS_" + name.toUpperCase() + "_URL", receiverUrl("cfg"));
        PackagedServer second = start(db, config);
        await("the log names the clash", () -> second.output().contains("exactly.destinations." + name + " is on queue '"
                + cfgQueue + "', but the name '" + name + "' is held on queue '" + apiQueue + "'"));
        assertTrue(second.output().contains("ERROR"), second.output());

        // the API destination still answers, delivers and counts as its own
        HttpResponse<String> got = send(second, "GET", "/api/v1/queues/" + apiQueue + "/destinations/" + name, null);
        assertEquals(200, got.statusCode(), got.body());
        assertEquals("api", JSON.readTree(got.body()).get("source").asText());
        String during = push(second, apiQueue, "during");
        await("the API destination goes on delivering", () -> arrived("/api", during));
        String stranded = push(second, cfgQueue, "stranded");
        JsonNode cfg = destination(second, cfgQueue, name);
        assertEquals("configuration", cfg.get("source").asText());
        assertTrue(cfg.get("state").get("lastError").asText().startsWith("not started: the name '" + name + "' is held on queue '"
                + apiQueue + "'"), cfg.toString());
        for (String[] action : new String[][] {{"POST", "/pause"}, {"POST", "/resume"}, {"POST", "/replay"}, {"POST", "/redrive"},
                {"GET", "/dead-letters"}}) {
            HttpResponse<String> r = send(second, action[0], "/api/v1/queues/" + cfgQueue + "/destinations/" + name + action[1],
                    action[1].equals("/replay") ? "{\"fromOffset\":0}" : action[0].equals("POST") ? "{}" : null);
            assertEquals(409, r.statusCode(), action[1] + " of the configured one not started: " + r.body());
            assertTrue(r.body().contains("not started"), r.body());
        }
        await("the API destination's figures are its own", () -> delivered(second, apiQueue, name) == 2);
        assertEquals(0, delivered(second, cfgQueue, name));

        // a DELETE of the configured name on its own queue is still refused; on the other queue it deletes the API one
        assertEquals(409, send(second, "DELETE", "/api/v1/queues/" + cfgQueue + "/destinations/" + name, null).statusCode());
        assertEquals(204, send(second, "DELETE", "/api/v1/queues/" + apiQueue + "/destinations/" + name, null).statusCode());
        await("the configured destination starts", () -> {
            try {
                JsonNode d = destination(second, cfgQueue, name);
                return !d.get("state").hasNonNull("lastError");
            } catch (Exception e) {
                return false;
            }
        });
        String after = push(second, cfgQueue, "after");
        await("the configured destination delivers", () -> arrived("/cfg", after));
        Thread.sleep(500);
        assertEquals(List.of(), arrivals.stream().filter(a -> a.id().equals(stranded)).toList(),
                "stored before it started: not sent to it (it starts at the end of each partition)");
        assertEquals(404, send(second, "GET", "/api/v1/queues/" + apiQueue + "/destinations/" + name, null).statusCode());
        await("the delivery recorded", () -> delivered(second, cfgQueue, name) == 1);
        second.stop();

        // moved to another queue in the configuration: the rows it left on cfgQueue hold the name
        String movedQueue = "held-moved-" + suffix;
        Map<String, String> moved = new HashMap<>(config);
        moved.put("EXACTLY_DESTINATIONS_" + name.toUpperCase() + "_QUEUE", movedQueue);
        PackagedServer third = start(db, moved);
        await("the log names the rows left", () -> third.output().contains("is held on queue '" + cfgQueue
                + "' by the rows an earlier destination of that name left there"));
        HttpResponse<String> put = send(third, "PUT", "/api/v1/queues/other-" + suffix + "/destinations/" + name,
                "{\"url\":\"" + receiverUrl("x") + "\"}");
        assertEquals(409, put.statusCode(), put.body());
        assertEquals(204, send(third, "DELETE", "/api/v1/queues/" + cfgQueue + "/destinations/" + name, null).statusCode());
        assertEquals(404, send(third, "DELETE", "/api/v1/queues/" + cfgQueue + "/destinations/" + name, null).statusCode());
        await("the moved destination starts", () -> {
            try {
                return !destination(third, movedQueue, name).get("state").hasNonNull("lastError");
            } catch (Exception e) {
                return false;
            }
        });
        String last = push(third, movedQueue, "moved");
        await("the moved destination delivers", () -> arrived("/cfg", last));
        long once = arrivals.stream().filter(a -> a.id().equals(last) || a.id().equals(after) || a.id().equals(during)
                || a.id().equals(before)).count();
        assertEquals(4, once, "each delivered message arrived once: " + arrivals);
        third.stop();
    }

    private void startReceiver() throws Exception {
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 50);
        receiver.createContext("/", ex -> {
            ex.getRequestBody().readAllBytes();
            arrivals.add(new Arrival(ex.getRequestURI().getPath(), ex.getRequestHeaders().getFirst("webhook-id")));
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        receiver.start();
    }

    private String receiverUrl(String path) {
        return "http://127.0.0.1:" + receiver.getAddress().getPort() + "/" + path;
    }

    private boolean arrived(String path, String id) {
        return arrivals.stream().anyMatch(a -> a.path().equals(path) && a.id().equals(id));
    }

    private JsonNode destination(PackagedServer s, String queue, String name) throws Exception {
        HttpResponse<String> r = send(s, "GET", "/api/v1/queues/" + queue + "/destinations", null);
        assertEquals(200, r.statusCode(), r.body());
        for (JsonNode d : JSON.readTree(r.body()).get("destinations")) {
            if (d.get("name").asText().equals(name)) {
                return d;
            }
        }
        fail("no destination " + name + " in " + r.body());
        return null;
    }

    private long delivered(PackagedServer s, String queue, String name) {
        try {
            return destination(s, queue, name).get("state").get("delivered").asLong();
        } catch (Exception e) {
            return -1;
        }
    }

    /** Pushes one message; returns its messageId. */
    private String push(PackagedServer s, String queue, String txn) throws Exception {
        HttpResponse<String> r = send(s, "POST", "/api/v1/push", "{\"items\":[{\"queue\":\"" + queue
                + "\",\"transactionId\":\"" + txn + "\",\"payload\":{\"t\":\"" + txn + "\"}}]}");
        assertEquals(200, r.statusCode(), r.body());
        JsonNode item = JSON.readTree(r.body()).get("results").get(0);
        assertEquals("queued", item.get("status").asText(), r.body());
        String id = item.get("messageId").asText();
        assertNotNull(id);
        return id;
    }

    private HttpResponse<String> send(PackagedServer s, String method, String path, String body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port() + path))
                .header("Authorization", "Bearer " + KEY).header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static void await(String what, BooleanSupplier done) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > end) {
                fail("not within 60 s: " + what);
            }
            Thread.sleep(50);
        }
    }

    private PackagedServer start(String db, Map<String, String> env) throws Exception {
        return servers.onDatabase("name-held", db, KEY, dir -> {
            Map<String, String> all = new HashMap<>(env);
            all.put("EXACTLY_DELIVERY_ALLOWED_HOSTS", "127.0.0.1/32");
            all.put("EXACTLY_DELIVERY_POLL_MS", "100");
            return all;
        });
    }
}
