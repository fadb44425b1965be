package dev.exactly.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.exactly.testing.TestDatabase;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A graceful stop (SIGTERM) of the packaged server under a steady stream of pushes stores no push
 * without answering it, and loses none it answered 200. Producers keep sending, each with a client of
 * its own (a new connection whenever the server closed the last), as clients behind a load balancer
 * still routing to the instance would, from before the stop until the
 * listener refuses connections; the test then reads the database: a push that got no answer, or a
 * 503, is not stored, and one answered 200 is. Several stops in one run (each a new server on the
 * same database), at a random instant of the stream each, since the window this guards is short.
 */
class StopUnderPushesIT {

    private static final String KEY = "exactly-stop-load-test-key";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int RUNS = Integer.getInteger("exactly.stop.runs", 4);
    private static final int PRODUCERS = 8;

    @RegisterExtension
    final PackagedServers servers = new PackagedServers();
    private int refusedWhileStopping;

    @Test
    void aStopStoresNoPushWithoutAnsweringIt() throws Exception {
        String db = TestDatabase.createDatabase();
        List<String> problems = new ArrayList<>();
        for (int run = 0; run < RUNS; run++) {
            problems.addAll(oneStop(db, run));
        }
        assertEquals(List.of(), problems);
        // pushes that arrived after a stop began were refused: the packaged server's gate closed
        assertTrue(refusedWhileStopping > 0, "no push was answered 503 /problems/unavailable in " + RUNS + " stops");
    }

    /** One server, pushed to until it stops; returns what went wrong. */
    private List<String> oneStop(String db, int run) throws Exception {
        PackagedServer server = start(db);
        String queue = "stop-load-" + run;
        // transactionId -> what the client got: "200", "503 <type>", another status, or "cut <exception>"
        Map<String, String> outcomes = new ConcurrentHashMap<>();
        AtomicBoolean listening = new AtomicBoolean(true);
        long giveUpAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        List<Thread> producers = new ArrayList<>();
        for (int t = 0; t < PRODUCERS; t++) {
            int producer = t;
            Thread th = new Thread(() -> {
                // a client of its own: a new connection whenever the server closed the last one
                HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                for (int i = 0; listening.get() && System.nanoTime() < giveUpAt; i++) {
                    String txn = "r" + run + "-" + producer + "-" + i;
                    String body = "{\"items\":[{\"queue\":\"" + queue + "\",\"partition\":\"p" + (i % 4)
                            + "\",\"transactionId\":\"" + txn + "\",\"payload\":{\"n\":" + i + "}}]}";
                    HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/api/v1/push"))
                            .header("Authorization", "Bearer " + KEY).header("Content-Type", "application/json")
                            .timeout(Duration.ofSeconds(40)).POST(HttpRequest.BodyPublishers.ofString(body)).build();
                    try {
                        HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
                        String outcome = Integer.toString(r.statusCode());
                        if (r.statusCode() == 503) {
                            outcome += " " + problemType(r.body());
                        }
                        outcomes.put(txn, outcome);
                    } catch (ConnectException e) {
                        outcomes.put(txn, "refused"); // not accepted: the listener is closed
                        listening.set(false);
                        return;
                    } catch (IOException e) {
                        outcomes.put(txn, "cut " + e);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "producer-" + t);
            th.start();
            producers.add(th);
        }
        // a steady stream first (50 pushes answered), then the stop at a random instant of it
        while (outcomes.values().stream().filter("200"::equals).count() < 50 && System.nanoTime() < giveUpAt) {
            Thread.sleep(5);
        }
        Thread.sleep(ThreadLocalRandom.current().nextInt(300));
        server.process().destroy(); // SIGTERM
        assertTrue(server.process().waitFor(60, TimeUnit.SECONDS), "the server ended after SIGTERM");
        listening.set(false);
        for (Thread th : producers) {
            th.join(45_000);
        }

        Set<String> stored = storedTransactions(db, "r" + run + "-");
        List<String> problems = new ArrayList<>();
        Map<String, Integer> tally = new TreeMap<>();
        for (Map.Entry<String, String> e : outcomes.entrySet()) {
            String outcome = e.getValue();
            boolean isStored = stored.contains(e.getKey());
            String kind = outcome.startsWith("cut ") ? "cut" : outcome;
            tally.merge(kind + (isStored ? ", stored" : ", not stored"), 1, Integer::sum);
            refusedWhileStopping += outcome.equals("503 /problems/unavailable") ? 1 : 0;
            if (outcome.equals("200")) {
                if (!isStored) {
                    problems.add("run " + run + ": " + e.getKey() + " answered 200 but not stored");
                }
            } else if (outcome.startsWith("503 ") || outcome.startsWith("cut ") || outcome.equals("refused")) {
                if (isStored) {
                    problems.add("run " + run + ": " + e.getKey() + " stored without its answer: the client got " + outcome);
                }
            } else {
                problems.add("run " + run + ": " + e.getKey() + " answered " + outcome);
            }
        }
        Set<String> unknown = new HashSet<>(stored);
        unknown.removeAll(outcomes.keySet());
        if (!unknown.isEmpty()) {
            problems.add("run " + run + ": stored, never sent: " + unknown);
        }
        System.out.println("stop " + run + ": " + tally + " (exit " + server.process().exitValue() + ")");
        if (!problems.isEmpty()) {
            String out = server.output();
            System.out.println("its last output:\n" + out.substring(Math.max(0, out.length() - 4000)));
        }
        assertTrue(tally.getOrDefault("200, stored", 0) > 0, "pushes were stored before the stop: " + tally);
        return problems;
    }

    /** The problem type of an answer's body, or "?" when it has none. */
    private static String problemType(String body) {
        try {
            JsonNode type = JSON.readTree(body).get("type");
            return type == null ? "?" : type.asText();
        } catch (IOException e) {
            return "?";
        }
    }

    /** The transactionIds stored with this prefix. */
    private static Set<String> storedTransactions(String db, String prefix) throws Exception {
        Set<String> out = new HashSet<>();
        try (Connection c = TestDatabase.server().getDatabase("postgres", db).getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT transaction_id FROM exactly.messages WHERE transaction_id LIKE ?")) {
            ps.setString(1, prefix + "%");
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }

    /** Starts the packaged server on {@code db} on a free port of 127.0.0.1; returns once it listens. */
    private PackagedServer start(String db) throws Exception {
        PackagedServer s = servers.onDatabase("stop-load", db, KEY,
                dir -> Map.of("EXACTLY_PRIMING_ROUNDS", "0")); // a quicker start; this test is not about the first pushes' speed
        return s;
    }
}
