package dev.exactly.destination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.standardwebhooks.Webhook;
import com.sun.net.httpserver.HttpServer;
import dev.exactly.server.PackagedServer;
import dev.exactly.server.PackagedServers;
import dev.exactly.testing.TestDatabase;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * kill -9 of Exactly mid-delivery loses nothing. The packaged server (target/quarkus-app/quarkus-run.jar,
 * {@code java -jar}) on a database of its own delivers to an HTTP destination whose receiver runs
 * here on 127.0.0.1 (allowed through exactly.delivery.allowed-hosts) and verifies every request's
 * Standard Webhooks signature with the Standard Webhooks Java library. The receiver holds one request
 * open, so a delivery is under way, and the server is killed with SIGKILL
 * ({@link Process#destroyForcibly()}); what its partitions' leases covered at that moment is read
 * from the database; then a second server starts on the same database. Every messageId arrives at
 * least once, first arrivals come in offset order per partition, a repeat carries the id (and body)
 * of its offset, and every message outside the killed leases arrives exactly once.
 */
class DestinationKillIT {

    private static final String KEY = "exactly-kill-test-key";
    private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MESSAGES = 240;
    private static final int PARTITIONS = 4;

    /** One request the receiver got, in arrival order. */
    record Arrival(String id, String partition, long offset, String body, int attempt) {
    }

    @RegisterExtension
    final PackagedServers servers = new PackagedServers();
    private final List<Arrival> arrivals = new CopyOnWriteArrayList<>();
    private final List<String> badSignatures = new CopyOnWriteArrayList<>();
    private final HttpClient http = HttpClient.newHttpClient();
    private HttpServer receiver;

    @AfterEach
    void stop() throws Exception {
        if (receiver != null) {
            receiver.stop(0);
        }
    }

    @Test
    void killMinus9MidDeliveryLosesNothing() throws Exception {
        // the receiver: verifies each signature, records each arrival, and holds the one numbered HOLD open
        int hold = MESSAGES / 3;
        AtomicInteger count = new AtomicInteger();
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch killed = new CountDownLatch(1);
        Webhook verifier = new Webhook(SECRET);
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 50);
        receiver.createContext("/", ex -> {
            byte[] body = ex.getRequestBody().readAllBytes();
            Map<String, List<String>> headers = new HashMap<>();
            ex.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(), v));
            String text = new String(body, StandardCharsets.UTF_8);
            try {
                verifier.verify(text, headers);
            } catch (Exception e) {
                badSignatures.add(headers.get("webhook-id") + ": " + e);
            }
            arrivals.add(new Arrival(first(headers, "webhook-id"), first(headers, "exactly-partition"),
                    Long.parseLong(first(headers, "exactly-offset")), text, Integer.parseInt(first(headers, "exactly-attempt"))));
            if (count.incrementAndGet() == hold) {
                holding.countDown();
                try {
                    killed.await(120, TimeUnit.SECONDS); // a delivery under way when the server dies
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            } else {
                try {
                    Thread.sleep(5); // slow enough that the kill finds most messages undelivered
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        receiver.setExecutor(Executors.newFixedThreadPool(16));
        receiver.start();

        String db = TestDatabase.createDatabase();
        PackagedServer first = start(db);
        String queue = "kill-" + UUID.randomUUID().toString().substring(0, 8);
        String name = "receiver";
        String base = "/api/v1/queues/" + queue + "/destinations/" + name;
        for (int p = 0; p < PARTITIONS; p++) {
            push(first, queue, "p" + p, "before-" + p); // the partitions exist before the destination
        }
        assertEquals(201, send(first, "PUT", base, "{\"url\":\"http://127.0.0.1:" + receiver.getAddress().getPort()
                + "/hook\",\"signingSecret\":\"" + SECRET + "\",\"timeoutMs\":2000}").statusCode());
        assertEquals(204, send(first, "POST", base + "/pause", "").statusCode());
        Map<String, String> pushed = new LinkedHashMap<>(); // messageId -> partition
        for (int i = 0; i < MESSAGES; i++) {
            String partition = "p" + (i % PARTITIONS);
            pushed.put(push(first, queue, partition, "m" + i), partition);
        }
        assertEquals(204, send(first, "POST", base + "/resume", "").statusCode());

        assertTrue(holding.await(120, TimeUnit.SECONDS), "the receiver got " + arrivals.size() + " of " + hold + " deliveries");
        first.process().destroyForcibly(); // SIGKILL
        assertTrue(first.process().waitFor(30, TimeUnit.SECONDS));
        killed.countDown();
        int beforeRestart = arrivals.size();
        Map<String, Set<Long>> touched = leasedUnsettled(db, "destination:" + name);
        assertTrue(beforeRestart < MESSAGES, "killed mid-delivery: " + beforeRestart + " of " + MESSAGES + " had arrived");
        assertFalse(touched.isEmpty(), "a lease was under way when the server died");

        PackagedServer second = start(db);
        await("every message delivered after the restart", () -> ids().containsAll(pushed.keySet()));
        await("nothing pending", () -> pending(second, queue) == 0);
        Thread.sleep(300); // a repeat still on its way would arrive now

        assertEquals(List.of(), badSignatures, "every request verifies as Standard Webhooks");
        assertTrue(ids().containsAll(pushed.keySet()), "every messageId arrived at least once");
        Map<String, Long> lastFirst = new HashMap<>();
        Map<String, Arrival> firstOf = new HashMap<>();
        Map<String, Integer> times = new HashMap<>();
        for (Arrival a : arrivals) {
            times.merge(a.id(), 1, Integer::sum);
            Arrival earlier = firstOf.putIfAbsent(a.id(), a);
            if (earlier == null) {
                Long before = lastFirst.put(a.partition(), a.offset());
                assertTrue(before == null || a.offset() > before, "first arrivals in offset order in " + a.partition()
                        + ": " + a.offset() + " after " + before);
            } else {
                assertEquals(earlier.partition() + "/" + earlier.offset() + " " + earlier.body(),
                        a.partition() + "/" + a.offset() + " " + a.body(), "a repeat carries the id of its message");
            }
            assertEquals(pushed.get(a.id()), a.partition(), "only pushed messages, in their partitions");
        }
        int repeats = 0;
        for (Map.Entry<String, Integer> e : times.entrySet()) {
            Arrival a = firstOf.get(e.getKey());
            boolean inKilledLease = touched.getOrDefault(a.partition(), Set.of()).contains(a.offset());
            if (!inKilledLease) {
                assertEquals(1, e.getValue(), "untouched by the kill, so exactly once: " + a);
            }
            repeats += e.getValue() - 1;
        }
        assertTrue(repeats >= 1, "the request held open during the kill was not acked, so it arrived again");
        assertEquals(pushed.size(), times.size());
    }

    private Set<String> ids() {
        Set<String> out = new HashSet<>();
        arrivals.forEach(a -> out.add(a.id()));
        return out;
    }

    /** Per partition, the offsets the group's leases covered and had not settled: what the kill may repeat. */
    private static Map<String, Set<Long>> leasedUnsettled(String db, String group) throws Exception {
        Map<String, Set<Long>> out = new HashMap<>();
        try (Connection c = TestDatabase.server().getDatabase("postgres", db).getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT p.name, o FROM exactly.consumer_cursors k "
                     + "JOIN exactly.partitions p ON p.id = k.partition_id, generate_series(k.lease_from, k.lease_to) o "
                     + "WHERE k.consumer_group = ? AND k.lease_id IS NOT NULL AND o >= k.next_offset AND NOT EXISTS ("
                     + "SELECT 1 FROM exactly.deliveries d WHERE d.partition_id = k.partition_id "
                     + "AND d.consumer_group = k.consumer_group AND d.\"offset\" = o AND d.settled)")) {
            ps.setString(1, group);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.computeIfAbsent(rs.getString(1), k -> new HashSet<>()).add(rs.getLong(2));
                }
            }
        }
        return out;
    }

    private long pending(PackagedServer s, String queue) {
        try {
            HttpResponse<String> r = send(s, "GET", "/api/v1/queues/" + queue + "/destinations", null);
            return JSON.readTree(r.body()).get("destinations").get(0).get("state").get("pending").asLong();
        } catch (Exception e) {
            return -1;
        }
    }

    private static String first(Map<String, List<String>> headers, String name) {
        List<String> v = headers.get(name);
        return v == null || v.isEmpty() ? null : v.get(0);
    }

    private String push(PackagedServer s, String queue, String partition, String txn) throws Exception {
        HttpResponse<String> r = send(s, "POST", "/api/v1/push", "{\"items\":[{\"queue\":\"" + queue + "\",\"partition\":\""
                + partition + "\",\"transactionId\":\"" + txn + "\",\"payload\":{\"txn\":\"" + txn + "\"}}]}");
        assertEquals(200, r.statusCode(), r.body());
        JsonNode item = JSON.readTree(r.body()).get("results").get(0);
        assertNotNull(item.get("messageId"), r.body());
        return item.get("messageId").asText();
    }

    private HttpResponse<String> send(PackagedServer s, String method, String path, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port() + path))
                .header("Authorization", "Bearer " + KEY).header("Content-Type", "application/json");
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void await(String what, BooleanSupplier done) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > end) {
                fail("not within 180 s: " + what);
            }
            Thread.sleep(50);
        }
    }

    /** Starts the packaged server on {@code db} on a free port of 127.0.0.1; returns once it listens. */
    private PackagedServer start(String db) throws Exception {
        PackagedServer s = servers.onDatabase("kill", db, KEY, dir -> Map.of(
                "EXACTLY_DELIVERY_ALLOWED_HOSTS", "127.0.0.1/32",
                "EXACTLY_DELIVERY_POLL_MS", "100"));
        return s;
    }
}
