package dev.exactly.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.exactly.testing.Api;
import dev.exactly.testing.LogCapture;
import dev.exactly.webhook.Signing;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A stalled database (every process of PostgreSQL stopped with SIGSTOP, as a frozen machine or a
 * network partition leaves it: connections stay open, nothing is answered, not even a cancel
 * request) cannot keep a request unanswered: every route that needs the database, long poll
 * included, is answered within the request deadline (exactly.request.deadline-ms, 22 s here,
 * {@link DeadlineProfile}) with 503 problem+json and Retry-After ({@code /problems/unavailable}
 * when no connection could be had, {@code /problems/database-timeout} when the work was under
 * way), and readiness says DOWN within 2 s. Once PostgreSQL runs again (SIGCONT), the service
 * answers by itself, holds no lock, no open transaction and no fusion lane, and the retries of
 * the writes whose outcome was unknown are answered exactly.
 */
@QuarkusTest
@TestProfile(DeadlineProfile.class)
class DatabaseStallHttpTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Slack for HTTP on a loaded machine; the service answers 250 ms before the deadline. */
    private static final long TOLERANCE_MS = 500;

    @TestHTTPResource("/")
    URL base;

    @Inject
    MeterRegistry registry;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final RestartablePostgres pg = RestartablePostgres.shared();

    @AfterEach
    void databaseRuns() {
        pg.resume();
        pg.start();
    }

    /** One request: method, path, body (null for none), extra headers. */
    private record Call(String name, String method, String path, String body, Map<String, String> headers) {
        static Call json(String name, String method, String path, String body) {
            return new Call(name, method, path, body, Map.of());
        }
    }

    /** What came back, and how long it took. */
    private record Answer(Call call, int status, String body, String retryAfter, String contentType, long millis) {
    }

    private Answer send(Call c) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base.toString()).resolve(c.path()))
                .timeout(Duration.ofSeconds(70)).header("Authorization", "Bearer " + Api.TEST_API_KEY);
        if (c.body() != null) {
            b.header("Content-Type", "application/json");
        }
        c.headers().forEach(b::header);
        b.method(c.method(), c.body() == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(c.body()));
        long start = System.nanoTime();
        try {
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            return new Answer(c, r.statusCode(), r.body(), r.headers().firstValue("Retry-After").orElse(null),
                    r.headers().firstValue("Content-Type").orElse(""), (System.nanoTime() - start) / 1_000_000);
        } catch (Exception e) {
            return new Answer(c, -1, e.toString(), null, "", (System.nanoTime() - start) / 1_000_000);
        }
    }

    private JsonNode ok(Call c) throws Exception {
        Answer a = send(c);
        assertTrue(a.status() >= 200 && a.status() < 300, c.name() + ": " + a.status() + " " + a.body());
        return a.body().isEmpty() ? JSON.nullNode() : JSON.readTree(a.body());
    }

    @Test
    void everyRequestIsAnsweredWithinTheDeadlineWhileTheDatabaseStalls() throws Exception {
        String q = "stall-" + UUID.randomUUID().toString().substring(0, 8);
        String tq = q + "-tasks";
        // what the requests during the stall refer to, made while the database answers
        for (int i = 0; i < 3; i++) {
            ok(Call.json("push", "POST", "/api/v1/push", "{\"items\":[{\"queue\":\"" + q + "\",\"partition\":\"p\","
                    + "\"transactionId\":\"before-" + i + "\",\"payload\":" + i + "}]}"));
        }
        JsonNode popped = ok(Call.json("pop", "POST", "/api/v1/pop", "{\"queue\":\"" + q + "\",\"partition\":\"p\","
                + "\"consumerGroup\":\"g\",\"batch\":2,\"leaseSeconds\":120}")).get("messages");
        assertEquals(2, popped.size());
        String messageId = popped.get(0).get("messageId").asText();
        String lease = popped.get(0).get("leaseId").asText();
        for (int i = 0; i < 4; i++) {
            ok(Call.json("enqueue", "POST", "/api/v1/tasks", "{\"queue\":\"" + tq + "\",\"id\":\"t" + i
                    + "\",\"type\":\"job\",\"data\":{},\"maxRetries\":3}"));
        }
        JsonNode claimed = ok(Call.json("claim", "POST", "/api/v1/tasks/claim", "{\"queue\":\"" + tq
                + "\",\"limit\":3,\"leaseSeconds\":120}")).get("tasks");
        assertEquals(3, claimed.size());
        Map<String, String> taskLease = new LinkedHashMap<>();
        claimed.forEach(t -> taskLease.put(t.get("id").asText(), t.get("leaseId").asText()));
        List<String> ids = new ArrayList<>(taskLease.keySet());
        byte[] hook = "{\"zen\":\"Keep it logically awesome.\"}".getBytes(StandardCharsets.UTF_8);

        List<Call> calls = List.of(
                Call.json("push one partition", "POST", "/api/v1/push", "{\"items\":[{\"queue\":\"" + q
                        + "\",\"partition\":\"p\",\"transactionId\":\"stalled-1\",\"payload\":1}]}"),
                Call.json("push two partitions", "POST", "/api/v1/push", "{\"items\":[{\"queue\":\"" + q
                        + "\",\"partition\":\"p\",\"transactionId\":\"stalled-2\",\"payload\":2},{\"queue\":\"" + q
                        + "\",\"partition\":\"other\",\"transactionId\":\"stalled-3\",\"payload\":3}]}"),
                Call.json("push to a new queue", "POST", "/api/v1/push", "{\"items\":[{\"queue\":\"" + q
                        + "-new\",\"transactionId\":\"stalled-4\",\"payload\":4}]}"),
                Call.json("pop, long poll", "POST", "/api/v1/pop", "{\"queue\":\"" + q + "-empty\",\"waitMillis\":20000}"),
                Call.json("pop", "POST", "/api/v1/pop", "{\"queue\":\"" + q + "\",\"consumerGroup\":\"g2\"}"),
                Call.json("ack", "POST", "/api/v1/ack", "{\"messageId\":\"" + messageId + "\",\"leaseId\":\"" + lease
                        + "\",\"consumerGroup\":\"g\",\"status\":\"completed\"}"),
                Call.json("ack batch", "POST", "/api/v1/ack/batch", "{\"items\":[{\"messageId\":\""
                        + popped.get(1).get("messageId").asText() + "\",\"leaseId\":\"" + lease
                        + "\",\"consumerGroup\":\"g\",\"status\":\"completed\"}]}"),
                Call.json("extend a pop lease", "POST", "/api/v1/pop/extend", "{\"leaseId\":\"" + lease
                        + "\",\"leaseSeconds\":60}"),
                Call.json("transaction", "POST", "/api/v1/transaction", "{\"operations\":[{\"type\":\"push\",\"items\":"
                        + "[{\"queue\":\"" + q + "\",\"partition\":\"p\",\"transactionId\":\"stalled-tx\",\"payload\":5}]}]}"),
                Call.json("read a message", "GET", "/api/v1/messages/" + messageId, null),
                Call.json("list queues", "GET", "/api/v1/queues", null),
                Call.json("read a queue", "GET", "/api/v1/queues/" + q, null),
                Call.json("queue stats", "GET", "/api/v1/queues/" + q + "/stats", null),
                Call.json("configure", "POST", "/api/v1/configure", "{\"queue\":\"" + q + "\",\"options\":{\"retryLimit\":4}}"),
                Call.json("patch a queue", "PATCH", "/api/v1/queues/" + q, "{\"options\":{\"retryLimit\":5}}"),
                Call.json("redrive", "POST", "/api/v1/queues/" + q + ".dlq/redrive", "{}"),
                Call.json("enqueue a task", "POST", "/api/v1/tasks", "{\"queue\":\"" + tq
                        + "\",\"id\":\"stalled-task\",\"type\":\"job\",\"data\":{}}"),
                Call.json("enqueue tasks", "POST", "/api/v1/tasks/batch", "{\"tasks\":[{\"queue\":\"" + tq
                        + "\",\"id\":\"stalled-b\",\"type\":\"job\",\"data\":{}}]}"),
                Call.json("claim tasks", "POST", "/api/v1/tasks/claim", "{\"queue\":\"" + tq + "\"}"),
                Call.json("list tasks", "GET", "/api/v1/tasks?queue=" + tq, null),
                Call.json("read a task", "GET", "/api/v1/tasks/t3?queue=" + tq, null),
                Call.json("complete a task", "POST", "/api/v1/tasks/" + ids.get(0) + "/complete?queue=" + tq,
                        "{\"leaseId\":\"" + taskLease.get(ids.get(0)) + "\",\"result\":{\"ok\":true}}"),
                Call.json("fail a task", "POST", "/api/v1/tasks/" + ids.get(1) + "/fail?queue=" + tq,
                        "{\"leaseId\":\"" + taskLease.get(ids.get(1)) + "\",\"error\":\"stalled\"}"),
                Call.json("extend a task", "POST", "/api/v1/tasks/" + ids.get(2) + "/extend?queue=" + tq,
                        "{\"leaseId\":\"" + taskLease.get(ids.get(2)) + "\",\"leaseSeconds\":60}"),
                Call.json("delete a task", "DELETE", "/api/v1/tasks/t3?queue=" + tq, null),
                Call.json("maintenance", "POST", "/api/v1/admin/maintenance", null),
                Call.json("migrate", "POST", "/api/v1/admin/migrate", null),
                new Call("webhook", "POST", "/webhooks/gh", new String(hook, StandardCharsets.UTF_8),
                        Map.of("X-GitHub-Event", "ping", "X-GitHub-Delivery", UUID.randomUUID().toString(),
                                "X-Hub-Signature-256", Signing.github("gh-test-secret", hook))));

        int stopped = pg.stall();
        assertTrue(stopped >= 1, "the server's processes were stopped");
        List<Answer> answers;
        Answer ready;
        List<String> healthLines;
        ExecutorService pool = Executors.newFixedThreadPool(calls.size());
        try {
            List<CompletableFuture<Answer>> pending = new ArrayList<>();
            for (Call c : calls) {
                pending.add(CompletableFuture.supplyAsync(() -> send(c), pool));
            }
            try (LogCapture logs = LogCapture.open()) {
                ready = send(new Call("readiness", "GET", "/q/health/ready", null, Map.of()));
                healthLines = logs.records().stream().filter(r -> r.getLoggerName().startsWith("io.smallrye.health"))
                        .map(r -> r.getLevel() + " " + r.getFormattedMessage()).toList();
            }
            answers = new ArrayList<>();
            for (CompletableFuture<Answer> f : pending) {
                answers.add(f.get(90, TimeUnit.SECONDS));
            }
        } finally {
            pool.shutdownNow();
            pg.resume();
        }

        List<String> wrong = new ArrayList<>();
        for (Answer a : answers) {
            String type = a.status() == 503 && a.contentType().startsWith("application/problem+json")
                    ? JSON.readTree(a.body()).path("type").asText() : "";
            boolean typed = Set.of("/problems/unavailable", "/problems/database-timeout").contains(type);
            if (a.millis() > DeadlineProfile.DEADLINE_MS + TOLERANCE_MS || a.status() != 503 || !typed
                    || a.retryAfter() == null) {
                wrong.add(a.call().name() + ": " + a.status() + " after " + a.millis() + " ms, Retry-After "
                        + a.retryAfter() + ", " + a.body());
            }
            System.out.println("[stall] " + a.call().name() + ": " + a.status() + " " + type + " after " + a.millis() + " ms");
        }
        System.out.println("[stall] readiness: " + ready.status() + " after " + ready.millis() + " ms: " + ready.body());
        assertEquals(List.of(), wrong, "answers beyond the deadline of " + DeadlineProfile.DEADLINE_MS + " ms, or not 503");
        assertEquals(503, ready.status(), "readiness: " + ready.body());
        assertTrue(ready.millis() < 2000, "readiness answered after " + ready.millis() + " ms");
        assertTrue(ready.body().contains("\"DOWN\""), ready.body());
        assertEquals(List.of(), healthLines, "a DOWN answer logged by the health extension (one line per probe)");

        // PostgreSQL runs again: the service answers by itself, and nothing is left held
        assertEquals(200, new ServiceHttp(base).pushUntilAnswered(q, "after", Duration.ofSeconds(30)));
        assertNothingHeld();

        // the writes whose outcome was unknown, retried, are answered exactly
        JsonNode retried = ok(calls.get(0));
        assertTrue(Set.of("queued", "duplicate").contains(retried.at("/results/0/status").asText()), retried.toString());
        JsonNode again = ok(calls.get(0));
        assertEquals("duplicate", again.at("/results/0/status").asText());
        assertEquals(retried.at("/results/0/messageId"), again.at("/results/0/messageId"));
        assertEquals(1, storedCount(q, "p", "stalled-1"), "stored once");
        JsonNode completed = ok(calls.get(21));
        assertEquals("completed", completed.get("state").asText(), completed.toString());
        JsonNode failed = ok(calls.get(22));
        assertEquals(ids.get(1), failed.get("id").asText());
    }

    /**
     * Within a few seconds: no session of the service holds a lock, sits in a transaction or runs
     * a statement, and no fusion lane is open.
     */
    private void assertNothingHeld() throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        String held = "";
        double lanes = -1;
        while (System.nanoTime() < until) {
            held = sessionsHoldingAnything();
            Gauge g = registry.find("exactly.fusion.lanes").gauge();
            lanes = g == null ? -1 : g.value();
            if (held.isEmpty() && lanes == 0) {
                return;
            }
            Thread.sleep(200);
        }
        assertEquals("", held, "sessions of the service still busy or holding locks");
        assertEquals(0.0, lanes, "fusion lanes still open");
    }

    private String sessionsHoldingAnything() throws Exception {
        try (Connection c = pg.connect(RestartablePostgresProfile.DATABASE); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT a.pid, a.state, a.wait_event_type, left(a.query, 60), "
                     + "(SELECT count(*) FROM pg_locks l WHERE l.pid = a.pid AND l.granted AND l.locktype <> 'virtualxid') "
                     + "FROM pg_stat_activity a WHERE a.datname = current_database() AND a.application_name = 'exactly' "
                     + "AND a.pid <> pg_backend_pid()")) {
            StringBuilder out = new StringBuilder();
            while (rs.next()) {
                if (!"idle".equals(rs.getString(2)) || rs.getLong(5) > 0) {
                    out.append(rs.getLong(1)).append(' ').append(rs.getString(2)).append(' ').append(rs.getString(3))
                            .append(" locks=").append(rs.getLong(5)).append(' ').append(rs.getString(4)).append("; ");
                }
            }
            return out.toString();
        }
    }

    private long storedCount(String queue, String partition, String transactionId) throws Exception {
        return pg.number(RestartablePostgresProfile.DATABASE, "SELECT count(*) FROM exactly.messages m "
                + "JOIN exactly.partitions p ON p.id = m.partition_id JOIN exactly.queues q ON q.id = p.queue_id "
                + "WHERE q.name = '" + queue + "' AND p.name = '" + partition + "' AND m.transaction_id = '"
                + transactionId + "'");
    }
}
