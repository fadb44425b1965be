package dev.exactly.destination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.exactly.server.PackagedServer;
import dev.exactly.server.PackagedServers;
import dev.exactly.testing.TestDatabase;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
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
 * A graceful stop (SIGTERM, {@link Process#destroy()}) of the packaged server mid-delivery, with
 * producers pushing meanwhile, cuts no request and loses no settled work. Two destinations of one
 * queue (one ordered, one not; {@code timeoutMs} 20 s, so their leases last 63 s) deliver a backlog
 * to a receiver on 127.0.0.1 while four producers push; the server is stopped once part of it
 * arrived, and a second server starts on the same database. A push that arrived once the stop began
 * is answered 503 and writes nothing; one cut without an answer as the listener closed was not
 * stored: sent again, it is new (docs/operations.md, "A stop"); the log holds no interrupted
 * database wait; no lease of the destinations is left in the database; every stored message arrives at both; the
 * second server delivers the rest well within the lease length; and of the messages the receiver
 * answered 2xx before the stop, only those whose attempt the stop cut off arrive again: for the
 * ordered destination at most the last message of each partition.
 */
class DestinationStopIT {

    private static final String KEY = "exactly-stop-test-key";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int BACKLOG = 400;
    private static final int PARTITIONS = 4;
    private static final int PRODUCERS = 4;

    /** One request the receiver got, in arrival order. */
    record Arrival(String destination, String id, String partition, long offset, long atNanos) {
    }

    @RegisterExtension
    final PackagedServers servers = new PackagedServers();
    private final List<Arrival> arrivals = new CopyOnWriteArrayList<>();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private HttpServer receiver;

    @AfterEach
    void stop() throws Exception {
        if (receiver != null) {
            receiver.stop(0);
        }
    }

    @Test
    void aGracefulStopCutsNoRequestAndLosesNoSettledWork() throws Exception {
        AtomicInteger count = new AtomicInteger();
        CountDownLatch midStream = new CountDownLatch(1);
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 100);
        receiver.createContext("/", ex -> {
            ex.getRequestBody().readAllBytes();
            String destination = ex.getRequestURI().getPath().substring(1);
            arrivals.add(new Arrival(destination, ex.getRequestHeaders().getFirst("webhook-id"),
                    ex.getRequestHeaders().getFirst("exactly-partition"),
                    Long.parseLong(ex.getRequestHeaders().getFirst("exactly-offset")), System.nanoTime()));
            if (count.incrementAndGet() == BACKLOG / 2) {
                midStream.countDown();
            }
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        receiver.setExecutor(Executors.newFixedThreadPool(32));
        receiver.start();

        String db = TestDatabase.createDatabase();
        PackagedServer first = start(db);
        String queue = "stop-" + UUID.randomUUID().toString().substring(0, 8);
        for (int p = 0; p < PARTITIONS; p++) {
            push(first, queue, List.of("p" + p), "before-" + p); // the partitions exist before the destinations
        }
        List<String> destinations = List.of("ordered", "unordered");
        for (String name : destinations) {
            String base = "/api/v1/queues/" + queue + "/destinations/" + name;
            assertEquals(201, send(first, "PUT", base, "{\"url\":\"http://127.0.0.1:" + receiver.getAddress().getPort()
                    + "/" + name + "\",\"timeoutMs\":20000,\"ordered\":" + name.equals("ordered") + "}").statusCode());
            assertEquals(204, send(first, "POST", base + "/pause", "").statusCode());
        }
        Set<String> stored = ConcurrentHashMap.newKeySet();
        for (int i = 0; i < BACKLOG; i += 50) {
            List<String> partitions = new ArrayList<>();
            for (int j = i; j < i + 50; j++) {
                partitions.add("p" + (j % PARTITIONS));
            }
            stored.addAll(push(first, queue, partitions, "backlog-" + i));
        }
        for (String name : destinations) {
            assertEquals(204, send(first, "POST", "/api/v1/queues/" + queue + "/destinations/" + name + "/resume", "").statusCode());
        }

        // producers push one message at a time until shortly after the stop
        Map<String, String> cut = new ConcurrentHashMap<>(); // transactionId -> request and error
        Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
        AtomicInteger refused = new AtomicInteger();
        java.util.concurrent.atomic.AtomicLong stopAt = new java.util.concurrent.atomic.AtomicLong();
        List<Thread> producers = new ArrayList<>();
        for (int t = 0; t < PRODUCERS; t++) {
            int producer = t;
            Thread th = new Thread(() -> {
                for (int i = 0; stopAt.get() == 0 || System.nanoTime() - stopAt.get() < TimeUnit.MILLISECONDS.toNanos(300); i++) {
                    String txn = "live-" + producer + "-" + i;
                    String body = "{\"items\":[{\"queue\":\"" + queue + "\",\"partition\":\"p" + (i % PARTITIONS)
                            + "\",\"transactionId\":\"" + txn + "\",\"payload\":{\"txn\":\"" + txn + "\"}}]}";
                    try {
                        HttpResponse<String> r = http.send(request(first, "POST", "/api/v1/push", body), HttpResponse.BodyHandlers.ofString());
                        statuses.computeIfAbsent(r.statusCode(), k -> new AtomicInteger()).incrementAndGet();
                        if (r.statusCode() == 200) {
                            stored.add(JSON.readTree(r.body()).get("results").get(0).get("messageId").asText());
                        }
                        if (r.statusCode() == 503 || r.headers().firstValue("connection").orElse("").equalsIgnoreCase("close")) {
                            return; // the server says it is stopping: a client goes elsewhere
                        }
                    } catch (ConnectException e) {
                        refused.incrementAndGet(); // not accepted: the server no longer listens
                        return;
                    } catch (IOException e) {
                        cut.put(txn, body + " -> " + e);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "producer-" + t);
            th.start();
            producers.add(th);
        }

        assertTrue(midStream.await(120, TimeUnit.SECONDS), "the receiver got " + arrivals.size() + " deliveries");
        stopAt.set(System.nanoTime());
        first.process().destroy(); // SIGTERM
        assertTrue(first.process().waitFor(60, TimeUnit.SECONDS), "the server ended after SIGTERM");
        for (Thread th : producers) {
            th.join(30_000);
        }
        int beforeRestart = arrivals.size();
        // its log file: what a child process writes as it exits may not reach the parent's pipe reader
        String log = Files.readString(logFile(first));
        System.out.println("first server, exit " + first.process().exitValue() + ", its last lines:\n" + fromStop(log));
        assertTrue(beforeRestart < 2 * stored.size(), "stopped mid-delivery: " + beforeRestart + " of " + 2 * stored.size());
        // what the stop did, all reported at once
        List<String> problems = new ArrayList<>();
        System.out.println("pushes at the stop: statuses " + statuses + ", refused " + refused + ", lost with no answer " + cut);
        for (int status : statuses.keySet()) {
            if (status != 200 && status != 503) {
                problems.add("a push answered " + status + " at the stop");
            }
        }
        if (log.contains("InterruptedException") || log.contains("stopped for now")) {
            problems.add("the stop interrupted a database wait, or stopped a worker with an error (see the log above)");
        }
        // a connection accepted as the listener closes may be cut unanswered; what it sent was refused
        // unread (docs/operations.md, "A stop"), which the retries below check
        if (log.contains("Failed to register an accepted channel")) {
            System.out.println("a connection was accepted while the listener closed");
        }
        List<String> held = leasesHeld(db);
        if (!held.isEmpty()) {
            problems.add("leases of the destinations left after the stop: " + held);
        }

        Set<String> arrivedBefore = new HashSet<>();
        Map<String, Map<String, Long>> lastBefore = new HashMap<>(); // destination -> partition -> last offset
        for (Arrival a : arrivals.subList(0, beforeRestart)) {
            arrivedBefore.add(a.destination() + "/" + a.id());
            lastBefore.computeIfAbsent(a.destination(), k -> new HashMap<>()).merge(a.partition(), a.offset(), Math::max);
        }

        PackagedServer second = start(db);
        long listening = System.nanoTime();
        // A push that got no answer at all: sent again, it must be new. The server never stored it: an
        // HTTP/1.1 request sent on a kept-alive connection at the moment the server closes it (a race of
        // the protocol itself: the stop tells a client whose connection is idle nothing before closing
        // it), or one that arrived after the stop began, refused unread. Answered duplicate, it was stored
        // without its answer.
        int storedUnanswered = 0;
        for (Map.Entry<String, String> c : cut.entrySet()) {
            String body = c.getValue().substring(0, c.getValue().indexOf(" -> "));
            HttpResponse<String> r = send(second, "POST", "/api/v1/push", body);
            assertEquals(200, r.statusCode(), r.body());
            JsonNode item = JSON.readTree(r.body()).get("results").get(0);
            stored.add(item.get("messageId").asText());
            String status = item.get("status").asText();
            if (!status.equals("queued")) {
                storedUnanswered++;
                problems.add("a push cut without an answer was answered " + status + " when sent again (stored "
                        + "without its answer): " + c.getValue() + " -> " + r.body());
            }
        }
        System.out.println("pushes stored as the listener closed, without an answer: " + storedUnanswered);
        await("every stored message delivered to both after the restart", 180, () -> {
            Set<String> got = new HashSet<>();
            arrivals.forEach(a -> got.add(a.destination() + "/" + a.id()));
            for (String id : stored) {
                for (String name : destinations) {
                    if (!got.contains(name + "/" + id)) {
                        return false;
                    }
                }
            }
            return true;
        });
        long catchUpMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - listening);
        if (catchUpMs >= 30_000) {
            problems.add("delivery waited after the restart (the 63 s leases running out?): " + catchUpMs + " ms");
        }
        await("nothing pending", 60, () -> pending(second, queue) == 0);
        Thread.sleep(300); // a repeat still on its way would arrive now

        Map<String, Integer> times = new HashMap<>();
        Map<String, Arrival> firstOf = new HashMap<>();
        for (Arrival a : arrivals) {
            times.merge(a.destination() + "/" + a.id(), 1, Integer::sum);
            firstOf.putIfAbsent(a.destination() + "/" + a.id(), a);
        }
        List<String> repeatedOrdered = new ArrayList<>();
        for (Map.Entry<String, Integer> e : times.entrySet()) {
            Arrival a = firstOf.get(e.getKey());
            assertTrue(stored.contains(a.id()), "only stored messages arrive: " + a);
            if (e.getValue() == 1) {
                continue;
            }
            if (e.getValue() != 2 || !arrivedBefore.contains(e.getKey())) {
                problems.add("sent " + e.getValue() + " times: " + a);
            }
            if (a.destination().equals("ordered")) {
                // one message at a time per partition: the stop cuts at most the last one sent
                if (!lastBefore.get("ordered").get(a.partition()).equals(a.offset())) {
                    problems.add("answered 2xx before the stop, yet sent again: " + a);
                }
                repeatedOrdered.add(a.partition());
            } else if (stopAt.get() - a.atNanos() > TimeUnit.SECONDS.toNanos(1)) {
                // at once: only messages sent just before the stop may have been cut off
                problems.add("answered 2xx well before the stop, yet sent again: " + a);
            }
        }
        if (new HashSet<>(repeatedOrdered).size() != repeatedOrdered.size()) {
            problems.add("more than one repeat in a partition of the ordered destination: " + repeatedOrdered);
        }
        assertEquals(List.of(), problems);
    }

    /** The server's last lines of output (its stop). */
    private static String fromStop(String log) {
        return log.length() <= 8000 ? log : log.substring(log.length() - 8000);
    }

    /** Leases of the destinations' groups still running in the database. */
    private static List<String> leasesHeld(String db) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = TestDatabase.server().getDatabase("postgres", db).getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT k.consumer_group, p.name, k.lease_from, k.lease_to, k.next_offset "
                     + "FROM exactly.consumer_cursors k JOIN exactly.partitions p ON p.id = k.partition_id "
                     + "WHERE k.consumer_group LIKE 'destination:%' AND k.lease_id IS NOT NULL AND k.lease_expires_at > now()")) {
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1) + " " + rs.getString(2) + " [" + rs.getLong(3) + ", " + rs.getLong(4)
                            + "] next " + rs.getLong(5));
                }
            }
        }
        return out;
    }

    private long pending(PackagedServer s, String queue) {
        try {
            HttpResponse<String> r = send(s, "GET", "/api/v1/queues/" + queue + "/destinations", null);
            long sum = 0;
            for (JsonNode d : JSON.readTree(r.body()).get("destinations")) {
                sum += d.get("state").get("pending").asLong();
            }
            return sum;
        } catch (Exception e) {
            return -1;
        }
    }

    /** Pushes one message per partition given; returns their messageIds. */
    private List<String> push(PackagedServer s, String queue, List<String> partitions, String txn) throws Exception {
        StringBuilder items = new StringBuilder();
        for (int i = 0; i < partitions.size(); i++) {
            items.append(i == 0 ? "" : ",").append("{\"queue\":\"").append(queue).append("\",\"partition\":\"")
                    .append(partitions.get(i)).append("\",\"transactionId\":\"").append(txn).append('-').append(i)
                    .append("\",\"payload\":{\"n\":").append(i).append("}}");
        }
        HttpResponse<String> r = send(s, "POST", "/api/v1/push", "{\"items\":[" + items + "]}");
        assertEquals(200, r.statusCode(), r.body());
        List<String> ids = new ArrayList<>();
        for (JsonNode item : JSON.readTree(r.body()).get("results")) {
            ids.add(item.get("messageId").asText());
        }
        return ids;
    }

    private HttpRequest request(PackagedServer s, String method, String path, String body) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port() + path))
                .header("Authorization", "Bearer " + KEY).header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .build();
    }

    private HttpResponse<String> send(PackagedServer s, String method, String path, String body) throws Exception {
        return http.send(request(s, method, path, body), HttpResponse.BodyHandlers.ofString());
    }

    private static void await(String what, int seconds, BooleanSupplier done) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > end) {
                fail("not within " + seconds + " s: " + what);
            }
            Thread.sleep(50);
        }
    }

    private final Map<PackagedServer, Path> logs = new HashMap<>();

    private Path logFile(PackagedServer s) {
        return logs.get(s);
    }

    /** Starts the packaged server on {@code db} on a free port of 127.0.0.1, logging to a file too; returns once it listens. */
    private PackagedServer start(String db) throws Exception {
        Path[] log = new Path[1];
        PackagedServer s = servers.onDatabase("stop", db, KEY, dir -> {
            log[0] = dir.resolve("server.log");
            return Map.of(
                    "QUARKUS_LOG_FILE_ENABLED", "true",
                    "QUARKUS_LOG_FILE_PATH", log[0].toString(),
                    "EXACTLY_DELIVERY_ALLOWED_HOSTS", "127.0.0.1/32",
                    "EXACTLY_DELIVERY_POLL_MS", "100");
        });
        logs.put(s, log[0]);
        return s;
    }
}
