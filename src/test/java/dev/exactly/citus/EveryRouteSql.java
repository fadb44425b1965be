package dev.exactly.citus;

import static dev.exactly.consume.ConsumeFixtures.ackById;
import static dev.exactly.consume.ConsumeFixtures.ackByTxn;
import static dev.exactly.consume.ConsumeFixtures.age;
import static dev.exactly.consume.ConsumeFixtures.maintenance;
import static dev.exactly.consume.ConsumeFixtures.options;
import static dev.exactly.consume.ConsumeFixtures.pop;
import static dev.exactly.consume.ConsumeFixtures.push;
import static dev.exactly.consume.ConsumeFixtures.sql;
import static dev.exactly.testing.Api.api;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.duplicate.DuplicateFlusher;
import dev.exactly.testing.AppDatabase;
import io.restassured.path.json.JsonPath;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Every route's SQL, called: a walk through the HTTP API that takes every route, and each route
 * down the paths that reach each of its SQL functions (a push by name and by a learnt partition
 * id, to one partition and to several; pops of a partition and of a queue; acks by message id, by
 * transactionId with and without a partition, dead-lettering; a transaction; the queue listing,
 * stats and options, spreading; redrive; the duplicate counts; maintenance past retention; every
 * task operation; a destination's routes and its delivery, retries and dead letters), then a check
 * with PostgreSQL's own function statistics (pg_stat_user_functions, track_functions = pl) that
 * every PL/pgSQL function the application's statements reach ({@link RouteSql#routeFunctions}) ran
 * during the walk. SQL-language functions are inlined into the statements that use them and
 * checked with those; a function whose only statement raises an error (spread_changed) is never
 * counted, as PostgreSQL counts a call when it returns, and its caller's path is walked instead.
 * Each answer is checked as well as called.
 *
 * <p>Runs on plain PostgreSQL in CI ({@link EveryRouteSqlTest}) and on a Citus cluster by hand
 * ({@link EveryRouteSqlCitusTest}), where a function may run on the coordinator or, delegated,
 * on a worker: {@link #functionCalls()} adds up the nodes' counts.
 */
abstract class EveryRouteSql {

    @Inject
    Pool pool;

    @Inject
    DuplicateFlusher flusher;

    @Inject
    dev.exactly.destination.DrainRepository drains;

    /** Calls so far of each PL/pgSQL function of the schema, over every node of the database. */
    abstract Map<String, Long> functionCalls() throws Exception;

    /** The route functions this database never runs (another path does their work there); none by default. */
    java.util.Set<String> notRunHere() {
        return java.util.Set.of();
    }

    private static String fresh(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static JsonPath ok(io.restassured.response.Response r) {
        r.then().statusCode(200);
        return r.jsonPath();
    }

    @Test
    void everyRouteCallsEachOfItsSqlFunctions() throws Exception {
        Map<String, String> functions;
        java.util.Set<String> raiseOnly;
        try (Connection c = AppDatabase.connect()) {
            functions = RouteSql.routeFunctions(c);
            raiseOnly = RouteSql.raiseOnly(c);
        }
        Map<String, Long> before = functionCalls();
        walk();

        List<String> uncalled = new ArrayList<>();
        Map<String, Long> after = Map.of();
        long until = System.nanoTime() + 30_000_000_000L; // backends report their counts within ~10 s of idling
        while (System.nanoTime() < until) {
            after = functionCalls();
            uncalled.clear();
            for (Map.Entry<String, String> f : functions.entrySet()) {
                if (f.getValue().equals("plpgsql") && !raiseOnly.contains(f.getKey()) && !notRunHere().contains(f.getKey())
                        && after.getOrDefault(f.getKey(), 0L) <= before.getOrDefault(f.getKey(), 0L)) {
                    uncalled.add(f.getKey());
                }
            }
            if (uncalled.isEmpty()) {
                break;
            }
            Thread.sleep(500);
        }
        Map<String, Long> delta = new TreeMap<>();
        for (String f : functions.keySet()) {
            delta.put(f, after.getOrDefault(f, 0L) - before.getOrDefault(f, 0L));
        }
        System.out.println("[every-route-sql] calls during the walk: " + delta + "; raising only (a call that raises "
                + "is not counted; their callers' paths are walked): " + raiseOnly);
        assertEquals(List.of(), uncalled, "route functions the walk never called");
        assertTrue(functions.size() > 20, "the routes' functions: " + functions.keySet());
    }

    /** Every route, down the path to each of its functions. */
    private void walk() {
        String q = fresh("w");
        // push: by name (push_bundle, ensure_partitions), then by the learnt id (push_segment), to two
        // partitions at once (a bundle), a duplicate (counted, then flushed: add_duplicates)
        assertEquals("queued", push(q, "p", "a-0", "0").get("status"));
        assertEquals("queued", push(q, "p", "a-1", "1").get("status"));
        assertEquals("duplicate", push(q, "p", "a-1", "1").get("status"));
        ok(api().body("{\"items\":[{\"queue\":\"" + q + "\",\"partition\":\"p\",\"transactionId\":\"a-2\",\"payload\":2},"
                + "{\"queue\":\"" + q + "\",\"partition\":\"p2\",\"transactionId\":\"b-0\",\"payload\":3}]}")
                .post("/api/v1/push"));
        flusher.flush().await().indefinitely();

        // pop a partition by name (pop) and ack by message id (ack_batch, advance_cursor); pop it again
        // by its learnt id (pop_partition), extend the lease, and ack by transactionId in the named
        // partition (ack_partition, resolve_offset); pop any partition of the queue and ack by
        // transactionId without a partition, to the dead-letter queue (ack_partition_name,
        // dead_letter, dead_letter_queue)
        List<Map<String, Object>> first = pop(q, "p", "g", 1);
        assertEquals(1, first.size());
        assertEquals("acked", ok(api().body(ackById(first.get(0), "g", "completed")).post("/api/v1/ack")).getString("result"));
        List<Map<String, Object>> second = pop(q, "p", "g", 1);
        assertEquals(1, second.size());
        ok(api().body(Map.of("leaseId", second.get(0).get("leaseId"), "leaseSeconds", 60)).post("/api/v1/pop/extend"));
        Map<String, Object> byTxn = ackByTxn(q, "p", (String) second.get(0).get("transactionId"), second.get(0).get("leaseId"),
                "g", "completed");
        assertEquals("acked", ok(api().body(Map.of("items", List.of(byTxn))).post("/api/v1/ack/batch"))
                .getString("results[0].result"));
        List<Map<String, Object>> any = pop(Map.of("queue", q, "consumerGroup", "h", "batch", 1));
        assertEquals(1, any.size());
        Map<String, Object> noPartition = ackByTxn(q, null, (String) any.get(0).get("transactionId"),
                any.get(0).get("leaseId"), "h", "dlq");
        noPartition.remove("partition");
        assertEquals("acked", ok(api().body(noPartition).post("/api/v1/ack")).getString("result"));

        // a transaction: an ack and a push, all or nothing
        List<Map<String, Object>> third = pop(q, "p", "g", 1);
        Map<String, Object> txAck = new java.util.LinkedHashMap<>(ackById(third.get(0), "g", "completed"));
        txAck.put("type", "ack");
        ok(api().body(Map.of("operations", List.of(txAck, Map.of("type", "push", "items", List.of(
                Map.of("queue", q + "-out", "partition", "p", "transactionId", "t-0", "payload", 1))))))
                .post("/api/v1/transaction"));

        // read by message id; the queues: listing (queue_page), one queue, stats (queue_group_lag,
        // queue_duplicates), options, a queue that spreads by key (lock_queue_partitions, spread_partition)
        ok(api().get("/api/v1/messages/{id}", first.get(0).get("messageId")));
        ok(api().queryParam("after", q.substring(0, q.length() - 1)).queryParam("limit", 2).get("/api/v1/queues"));
        ok(api().get("/api/v1/queues/{q}", q));
        ok(api().get("/api/v1/queues/{q}/stats", q));
        ok(api().body(Map.of("queue", q, "options", Map.of("retryLimit", 4))).post("/api/v1/configure"));
        String spread = fresh("w-spread");
        ok(api().body(Map.of("queue", spread, "options", Map.of("spreadPartitions", 4))).post("/api/v1/configure"));
        options(spread, Map.of("spreadPartitions", 8));
        ok(api().body("{\"items\":[{\"queue\":\"" + spread + "\",\"transactionId\":\"s-0\",\"payload\":1}]}").post("/api/v1/push"));
        // a push routed with a spreadPartitions another instance has changed since (spread_changed,
        // which raises EXS01: the instance learns the stored value and routes the push again)
        String stale = fresh("w-stale");
        assertEquals("queued", push(stale, "Default", "k-0", "0").get("status"));
        sql(pool, "UPDATE exactly.queues SET spread_partitions = 2 WHERE name = $1", stale);
        ok(api().body("{\"items\":[{\"queue\":\"" + stale + "\",\"transactionId\":\"k-1\",\"payload\":1}]}").post("/api/v1/push"));

        // the console's reads: the overview (queue_overview), a queue's duplicates per hour
        // (queue_duplicate_series), its dead letters without a pop (dead_letter_page), a key's messages
        ok(api().queryParam("contains", q).get("/api/v1/overview"));
        ok(api().get("/api/v1/queues/{q}/duplicates", q));
        ok(api().get("/api/v1/queues/{q}/dead-letters", q));
        ok(api().queryParam("queue", q).queryParam("transactionId", "t-0").get("/api/v1/messages"));
        ok(api().get("/api/v1/messages/{id}/deliveries", first.get(0).get("messageId")));

        // the webhook sources' figures: a delivery counted (count_webhook), then read (webhook_figures,
        // webhook_series); the maintenance below purges them (purge_webhook_minutes)
        byte[] hook = ("{\"walk\":\"" + q + "\"}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(200, dev.exactly.webhook.WebhookClient.post("gh", hook, "Content-Type", "application/json",
                "X-GitHub-Event", "push", "X-GitHub-Delivery", fresh("d"),
                "X-Hub-Signature-256", dev.exactly.webhook.Signing.github("gh-test-secret", hook)).statusCode());
        ok(api().get("/api/v1/webhooks/sources"));
        ok(api().get("/api/v1/webhooks/sources/gh/hours"));

        // redrive the dead letter (redrive_candidates, record_redrives)
        ok(api().body("{}").post("/api/v1/queues/" + q + "/redrive"));

        // tasks: enqueue (enqueue_task), claim (claim_tasks, settle_expired_leases), fail (fail_task),
        // complete, extend, delete, list, read
        String tq = fresh("w-tasks");
        for (String id : List.of("t1", "t2", "t3", "t4")) {
            ok(api().body("{\"queue\":\"" + tq + "\",\"id\":\"" + id + "\",\"type\":\"job\",\"data\":{},\"maxRetries\":2}")
                    .post("/api/v1/tasks"));
        }
        ok(api().body("{\"tasks\":[{\"queue\":\"" + tq + "\",\"id\":\"t5\",\"type\":\"job\",\"data\":{}}]}")
                .post("/api/v1/tasks/batch"));
        JsonPath claimed = ok(api().body(Map.of("queue", tq, "limit", 3, "leaseSeconds", 60)).post("/api/v1/tasks/claim"));
        List<String> ids = claimed.getList("tasks.id");
        List<String> leases = claimed.getList("tasks.leaseId");
        assertEquals("retrying", ok(api().queryParam("queue", tq).body(Map.of("leaseId", leases.get(0), "error", "x"))
                .post("/api/v1/tasks/{id}/fail", ids.get(0))).getString("state"));
        assertEquals("completed", ok(api().queryParam("queue", tq).body(Map.of("leaseId", leases.get(1), "result", 1))
                .post("/api/v1/tasks/{id}/complete", ids.get(1))).getString("state"));
        ok(api().queryParam("queue", tq).body(Map.of("leaseId", leases.get(2), "leaseSeconds", 30))
                .post("/api/v1/tasks/{id}/extend", ids.get(2)));
        api().queryParam("queue", tq).queryParam("leaseId", leases.get(2)).delete("/api/v1/tasks/{id}", ids.get(2))
                .then().statusCode(204);
        ok(api().queryParam("queue", tq).get("/api/v1/tasks"));
        ok(api().queryParam("queue", tq).get("/api/v1/tasks/{id}", ids.get(1)));

        destinations(q);

        // the Lambda shape's delivery drains, which no server-shape route reaches: a store asks for a
        // drain (ask_drains), a drain marks its queue (touch_drains), parks a partition
        // (park_partition) and a later drain claims it (claim_parked)
        java.time.Duration wait = java.time.Duration.ofSeconds(30);
        assertEquals(List.of(q), drains.ask(List.of(q), List.of(q), 1000).await().atMost(wait));
        drains.touch(List.of(q)).await().atMost(wait);
        String parked = fresh("w-parked");
        drains.park(parked, 1L, UUID.randomUUID(), 0L, 2, 0L).await().atMost(wait);
        dev.exactly.destination.DrainRepository.Parked parkedClaim = drains.claim(parked, 30).await().atMost(wait);
        assertEquals(2, parkedClaim.attempt());
        drains.unpark(parked, 1L, parkedClaim.leaseId()).await().atMost(wait);

        // maintenance past retention (purge_partition, purge_duplicate_counts, purge_finished_tasks,
        // purge_webhook_minutes)
        options(q, Map.of("retentionSeconds", 60, "dedupWindowSeconds", 60));
        age(pool, q, "p", 0, 1, 3600, true, true);
        maintenance();

        // the webhook queues' window (QueueWindows) and a push through a source
        ok(api().post("/api/v1/admin/migrate"));
    }

    /**
     * A destination's routes and its dispatcher's statements: one created through the API on a new
     * queue, delivering to a receiver on loopback (127.0.0.2, the address the test profile allows)
     * that answers 500 to one transactionId, which is dead-lettered after its attempts; listed, its
     * dead letters listed and redriven, paused, resumed, replayed from offset 0 and deleted.
     */
    private void destinations(String walked) {
        String dq = fresh("w-dest");
        String dn = "d-" + dq;
        java.util.concurrent.atomic.AtomicInteger delivered = new java.util.concurrent.atomic.AtomicInteger();
        com.sun.net.httpserver.HttpServer receiver;
        try {
            receiver = com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.2", 0), 50);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        receiver.createContext("/", ex -> {
            ex.getRequestBody().readAllBytes();
            boolean fail = "d-fail".equals(ex.getRequestHeaders().getFirst("Exactly-Transaction-Id"));
            if (!fail) {
                delivered.incrementAndGet();
            }
            ex.sendResponseHeaders(fail ? 500 : 200, -1);
            ex.close();
        });
        receiver.start();
        try {
            api().body("{\"url\":\"http://127.0.0.2:" + receiver.getAddress().getPort() + "/hook\",\"maxAttempts\":2,"
                    + "\"backoffMs\":1,\"backoffCapMs\":1}").put("/api/v1/queues/{q}/destinations/{n}", dq, dn)
                    .then().statusCode(201);
            assertEquals("queued", push(dq, "p", "d-0", "0").get("status"));
            assertEquals("queued", push(dq, "p", "d-fail", "1").get("status"));
            assertEquals("queued", push(dq, "p", "d-2", "2").get("status"));
            awaitTrue("the destination's dead letter", () -> !ok(api().get(
                    "/api/v1/queues/{q}/destinations/{n}/dead-letters", dq, dn)).getList("deadLetters").isEmpty());
            awaitTrue("two deliveries", () -> delivered.get() >= 2);
            assertEquals(1, ok(api().get("/api/v1/queues/{q}/destinations", dq)).getList("destinations").size());
            ok(api().body("{}").post("/api/v1/queues/{q}/destinations/{n}/redrive", dq, dn));
            api().post("/api/v1/queues/{q}/destinations/{n}/pause", dq, dn).then().statusCode(204);
            api().post("/api/v1/queues/{q}/destinations/{n}/resume", dq, dn).then().statusCode(204);
            ok(api().body(Map.of("fromOffset", 0)).post("/api/v1/queues/{q}/destinations/{n}/replay", dq, dn));
            awaitTrue("the replayed deliveries", () -> delivered.get() >= 4);
            api().delete("/api/v1/queues/{q}/destinations/{n}", dq, dn).then().statusCode(204);
            // the walked queue has no destination: nothing is delivered from it
            assertEquals(0, ok(api().get("/api/v1/queues/{q}/destinations", walked)).getList("destinations").size());
        } finally {
            receiver.stop(0);
        }
    }

    private static void awaitTrue(String what, java.util.function.BooleanSupplier done) {
        long end = System.nanoTime() + 60_000_000_000L;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("not within 60 s: " + what);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }
}
