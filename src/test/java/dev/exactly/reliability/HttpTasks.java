package dev.exactly.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Task traffic: producers enqueue tasks with explicit ids (30% re-send an id sent before, as a
 * retry would) and retry the same body after a 503; workers claim under a short lease and
 * complete. Audit: every id answered is stored exactly once, and "enqueued" was answered at most
 * once per id (a retry whose first reply was lost answers "duplicate", matchedOn "id").
 */
final class HttpTasks {

    private final SoakHttp http;
    private final String queue;
    private final AtomicLong ids = new AtomicLong();
    private final Map<String, AtomicInteger> enqueued = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> answered = new ConcurrentHashMap<>();

    HttpTasks(SoakHttp http, String queue) {
        this.http = http;
        this.queue = queue;
    }

    /** The producer operation. */
    SoakOperation producer() {
        return new SoakOperation() {
            @Override
            public String name() {
                return "task-enqueue-http";
            }

            @Override
            public void run(Random rnd, SoakStats stats) throws Exception {
                long issued = ids.get();
                String id = "task-" + (issued > 0 && rnd.nextInt(10) < 3 ? (long) (rnd.nextDouble() * issued) : ids.getAndIncrement());
                HttpResponse<String> r = http.call("/api/v1/tasks", "{\"queue\":\"" + queue + "\",\"id\":\"" + id
                        + "\",\"type\":\"soak\",\"data\":{\"n\":" + rnd.nextInt(1000) + "}}", rnd, stats);
                if (r.statusCode() != 200) {
                    throw new IllegalStateException("enqueue: HTTP " + r.statusCode() + " " + r.body());
                }
                JsonNode v = SoakHttp.JSON.readTree(r.body());
                if (!id.equals(v.get("taskId").asText())) {
                    throw new IllegalStateException("enqueue answered another task: " + r.body());
                }
                answered.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
                if ("enqueued".equals(v.get("status").asText())) {
                    enqueued.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
                }
                stats.operation(name());
            }

            @Override
            public void audit(SoakStats stats) throws Exception {
                auditTasks(stats);
            }
        };
    }

    /** The worker operation. */
    SoakOperation worker() {
        return new SoakOperation() {
            @Override
            public String name() {
                return "task-claim-complete-http";
            }

            @Override
            public void run(Random rnd, SoakStats stats) throws Exception {
                HttpResponse<String> r = http.call("/api/v1/tasks/claim", "{\"queue\":\"" + queue
                        + "\",\"types\":[\"soak\"],\"limit\":5,\"leaseSeconds\":5}", rnd, stats);
                if (r.statusCode() != 200) {
                    throw new IllegalStateException("claim: HTTP " + r.statusCode() + " " + r.body());
                }
                JsonNode tasks = SoakHttp.JSON.readTree(r.body()).get("tasks");
                if (tasks.isEmpty()) {
                    Thread.sleep(20);
                }
                for (JsonNode t : tasks) {
                    HttpResponse<String> c = http.call("/api/v1/tasks/" + t.get("id").asText() + "/complete?queue=" + queue,
                            "{\"leaseId\":\"" + t.get("leaseId").asText() + "\",\"result\":{\"ok\":true}}", rnd, stats);
                    // 409: the lease expired under a fault (or a retried complete that already went through)
                    if (c.statusCode() != 200 && c.statusCode() != 409) {
                        throw new IllegalStateException("complete: HTTP " + c.statusCode() + " " + c.body());
                    }
                }
                stats.operation(name());
            }
        };
    }

    private void auditTasks(SoakStats stats) throws Exception {
        long lost = 0;
        long duplicated = 0;
        Map<String, Integer> rows = new java.util.HashMap<>();
        try (Connection c = RestartablePostgres.shared().connect(RestartablePostgresProfile.DATABASE);
             PreparedStatement s = c.prepareStatement("SELECT task_id, count(*) FROM exactly.tasks WHERE queue = ? GROUP BY 1")) {
            s.setString(1, queue);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    rows.put(rs.getString(1), rs.getInt(2));
                }
            }
        }
        for (String id : answered.keySet()) {
            int n = rows.getOrDefault(id, 0);
            lost += n == 0 ? 1 : 0;
            duplicated += Math.max(0, n - 1);
        }
        for (AtomicInteger e : enqueued.values()) {
            duplicated += Math.max(0, e.get() - 1);
        }
        long phantom = rows.keySet().stream().filter(id -> !answered.containsKey(id)).count();
        stats.audited(String.format("task audit: ids answered=%d stored=%d lost=%d duplicated=%d unanswered-but-stored=%d",
                answered.size(), rows.size(), lost, duplicated, phantom), lost, duplicated);
    }
}
