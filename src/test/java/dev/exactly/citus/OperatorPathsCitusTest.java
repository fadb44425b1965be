package dev.exactly.citus;

import static dev.exactly.consume.ConsumeFixtures.ack;
import static dev.exactly.consume.ConsumeFixtures.ackBatch;
import static dev.exactly.consume.ConsumeFixtures.ackById;
import static dev.exactly.consume.ConsumeFixtures.age;
import static dev.exactly.consume.ConsumeFixtures.completeAll;
import static dev.exactly.consume.ConsumeFixtures.deadLetterAll;
import static dev.exactly.consume.ConsumeFixtures.longOf;
import static dev.exactly.consume.ConsumeFixtures.maintenance;
import static dev.exactly.consume.ConsumeFixtures.options;
import static dev.exactly.consume.ConsumeFixtures.partitionId;
import static dev.exactly.consume.ConsumeFixtures.pop;
import static dev.exactly.consume.ConsumeFixtures.push;
import static dev.exactly.consume.ConsumeFixtures.pushMany;
import static dev.exactly.consume.ConsumeFixtures.sql;
import static dev.exactly.testing.Api.api;
import static dev.exactly.webhook.WebhookClient.messageId;
import static dev.exactly.webhook.WebhookClient.post;
import static dev.exactly.webhook.WebhookClient.verdict;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.duplicate.DuplicateFlusher;
import dev.exactly.queue.QueueGauges;
import dev.exactly.testing.CitusCluster;
import dev.exactly.testing.CitusProfile;
import dev.exactly.webhook.Signing;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * The operators' paths with the application on a Citus cluster ({@link CitusProfile}: the
 * coordinator {@value CitusCluster#URL_VARIABLE} names, emptied, migrated and distributed first),
 * each through the HTTP API with its results read back: the queue listing, a queue's stats and the
 * queue gauges, redrive of dead letters, transactions (committed and rolled back), pop lease
 * extension, the webhook queues' deduplication window (dev.exactly.webhook.QueueWindows' own
 * statement), retention by the maintenance job, and a read by message id; and each operator's
 * function called a dozen times on one connection (past PostgreSQL's switch to a cached generic
 * plan). The plain-PostgreSQL tests of each path (QueueStatsTest, RedriveTest, TransactionTest,
 * PopLeaseExtensionTest, WebhookWindowTest, RetentionTest) hold the full rules; these check that
 * each statement plans and answers the same on a distributed schema. Time passing is simulated by
 * writing older times back as values (a distributed database runs no stable function of a column
 * in an UPDATE). Skipped when the variable is not set.
 */
@QuarkusTest
@TestProfile(CitusProfile.class)
@EnabledIfEnvironmentVariable(named = CitusCluster.URL_VARIABLE, matches = ".+", disabledReason = CitusCluster.SKIPPED)
class OperatorPathsCitusTest {

    private static final String ZERO = "00000000-0000-0000-0000-000000000000";

    @Inject
    Pool pool;

    @Inject
    QueueGauges gauges;

    @Inject
    MeterRegistry registry;

    @Inject
    DuplicateFlusher flusher;

    private static String fresh(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static JsonPath stats(String queue) {
        return api().get("/api/v1/queues/{q}/stats", queue).then().statusCode(200).extract().jsonPath();
    }


    private static JsonPath redrive(String queue, String body) {
        return api().body(body).post("/api/v1/queues/" + queue + "/redrive").then().statusCode(200)
                .extract().jsonPath();
    }

    @Test
    void statsAndTheListingCountPartitionsMessagesLagAndDeadLetters() {
        String q = fresh("c-stats");
        pushMany(q, "a", "a", 5);
        pushMany(q, "b", "b", 3);
        List<Map<String, Object>> popped = pop(q, "a", "g1", 3);
        completeAll(popped.subList(0, 2), "g1");
        ack(ackById(popped.get(2), "g1", "dlq")).then().statusCode(200);

        JsonPath s = stats(q);
        assertEquals(2, s.getInt("partitions"));
        assertEquals(8, s.getInt("messages"));
        assertEquals(1, s.getInt("deadLetters"));
        assertEquals(List.of("g1"), s.getList("consumerGroups.group"));
        assertEquals(2 + 3, s.getInt("consumerGroups[0].lag"), "2 left in a, 3 in b");
        assertNotNull(s.getString("consumerGroups[0].oldestUndeliveredAt"));

        // the listing, one queue a page, from just before q: q, then its dead-letter queue
        JsonPath page = api().queryParam("limit", 1).queryParam("after", q.substring(0, q.length() - 1))
                .get("/api/v1/queues").then().statusCode(200).extract().jsonPath();
        assertEquals(List.of(q), page.getList("queues.queue"));
        assertEquals(2, page.getInt("queues[0].partitions"));
        assertEquals(8, page.getInt("queues[0].messages"));
        assertEquals(q, page.getString("next"));
        JsonPath next = api().queryParam("limit", 1).queryParam("after", q).get("/api/v1/queues").then()
                .statusCode(200).extract().jsonPath();
        assertEquals(List.of(q + ".dlq"), next.getList("queues.queue"));
        assertEquals(1, next.getInt("queues[0].messages"));
    }

    @Test
    void theGaugesRefresh() {
        String q = "stats-gauged"; // exactly.metrics.queues of the test profile
        pushMany(q, "p", "g" + UUID.randomUUID(), 4);
        push(q, "p", "dup-" + UUID.randomUUID(), "1");
        completeAll(pop(q, "p", "workers", 1), "workers");

        gauges.refresh().await().indefinitely();

        assertTrue(registry.get("exactly.queue.messages").tag("queue", q).gauge().value() >= 5);
        assertEquals(1, registry.get("exactly.queue.partitions").tag("queue", q).gauge().value());
        double lag = registry.get("exactly.queue.lag.messages").tag("queue", q).tag("group", "workers").gauge().value();
        assertTrue(lag >= 4, "lag " + lag);
        assertEquals(0, registry.get("exactly.queue.dead.letters").tag("queue", q).gauge().value());
    }

    @Test
    void duplicatesAnsweredAreCountedInTheStats() {
        String q = fresh("c-dups");
        push(q, "p", "x", "1");
        assertEquals("duplicate", push(q, "p", "x", "1").get("status"));
        assertEquals("duplicate", push(q, "p", "x", "1").get("status"));
        flusher.flush().await().indefinitely();
        assertEquals(2, stats(q).getLong("duplicates.atLeast"));
    }

    @Test
    void aDeadLetterIsRedrivenByIdAndAllRedrivesTheRest() {
        String q = fresh("c-redrive");
        Map<String, Object> original = push(q, "p1", "order-1", "{\"n\":1}");
        pushMany(q, "p1", "m", 2);
        List<String> copies = deadLetterAll(q, "p1", 3);

        JsonPath byId = redrive(q, "{\"messageIds\":[\"" + copies.get(0) + "\"]}");
        assertEquals("redriven", byId.getString("results[0].status"));
        assertEquals(q, byId.getString("results[0].queue"));
        assertEquals("p1", byId.getString("results[0].partition"));
        assertNotEquals(original.get("messageId"), byId.getString("results[0].messageId"));
        assertEquals(2L, byId.getLong("remaining"));

        JsonPath again = redrive(q, "{\"messageIds\":[\"" + copies.get(0) + "\"]}");
        assertEquals("duplicate", again.getString("results[0].status"));
        assertEquals(byId.getString("results[0].messageId"), again.getString("results[0].messageId"));

        JsonPath all = redrive(q, "{}");
        assertEquals(copies.subList(1, 3), all.getList("results.deadLetterId"));
        assertEquals(List.of("redriven", "redriven"), all.getList("results.status"));
        assertEquals(0L, all.getLong("remaining"));
        assertTrue(redrive(q, "{}").getList("results").isEmpty(), "all does not redrive a copy twice");

        List<Map<String, Object>> back = pop(q, "p1", "g", 10);
        assertEquals(3, back.size());
        for (int i = 0; i < 3; i++) {
            assertEquals("redrive:" + copies.get(i), back.get(i).get("transactionId"));
        }
        assertEquals(byId.getString("results[0].messageId"), back.get(0).get("messageId"));
        completeAll(back, "g");
    }

    private static Map<String, Object> pushOp(Map<String, Object>... items) {
        return Map.of("type", "push", "items", List.of(items));
    }

    private static Map<String, Object> item(String queue, String partition, String txn, Object payload) {
        Map<String, Object> i = new LinkedHashMap<>();
        i.put("queue", queue);
        i.put("partition", partition);
        i.put("transactionId", txn);
        i.put("payload", payload);
        return i;
    }

    private static Map<String, Object> ackOp(Map<String, Object> ack) {
        Map<String, Object> op = new LinkedHashMap<>(ack);
        op.put("type", "ack");
        return op;
    }

    @Test
    void aTransactionCommitsItsAckAndPushesTogether() {
        String src = fresh("c-t-src");
        String dst = fresh("c-t-dst");
        push(src, "p", "in-1", "{}");
        Map<String, Object> m = pop(src, "p", "g", 1).get(0);
        JsonPath r = api().body(Map.of("operations", List.of(ackOp(ackById(m, "g", "completed")),
                        pushOp(item(dst, "p", "out-1", 1), item(dst, "q", "out-2", 2)))))
                .post("/api/v1/transaction").then().statusCode(200).extract().jsonPath();
        assertEquals("completed", r.getString("results[0].ack.outcome"));
        assertEquals(List.of("queued", "queued"), r.getList("results[1].items.status"));
        assertTrue(pop(src, "p", "g", 5).isEmpty(), "the ack committed");
        assertEquals(List.of("out-1"), pop(dst, "p", "g", 5).stream().map(x -> x.get("transactionId")).toList());
        assertEquals(List.of("out-2"), pop(dst, "q", "g", 5).stream().map(x -> x.get("transactionId")).toList());
    }

    @Test
    void aTransactionWithADuplicateRollsBackEverything() {
        String src = fresh("c-tr-src");
        String dst = fresh("c-tr-dst");
        String original = (String) push(dst, "p", "dup-1", "1").get("messageId");
        push(src, "p", "in-1", "{}");
        Map<String, Object> m = pop(src, "p", "g", 1).get(0);
        long dstLast = longOf(pool, "SELECT last_offset FROM exactly.partitions WHERE id = $1", partitionId(pool, dst, "p"));

        api().body(Map.of("operations", List.of(ackOp(ackById(m, "g", "completed")),
                        pushOp(item(dst, "p", "new-1", 1), item(dst, "p", "dup-1", 2)),
                        pushOp(item(dst, "x", "new-2", 3)))))
                .post("/api/v1/transaction").then().statusCode(409)
                .body("type", equalTo("/problems/duplicate"))
                .body("originalMessageId", equalTo(original));

        assertEquals(dstLast, longOf(pool, "SELECT last_offset FROM exactly.partitions WHERE id = $1",
                partitionId(pool, dst, "p")), "nothing allocated");
        assertEquals(1, longOf(pool, "SELECT count(*) FROM exactly.messages WHERE partition_id = $1",
                partitionId(pool, dst, "p")));
        assertEquals(0, longOf(pool, "SELECT count(*) FROM exactly.partitions p JOIN exactly.queues q "
                + "ON q.id = p.queue_id WHERE q.name = $1 AND p.name = 'x'", dst), "the new partition rolled back");
        // the ack was rolled back too: the lease still holds the message
        ack(ackById(m, "g", "completed")).then().statusCode(200).body("outcome", equalTo("completed"));
    }

    private OffsetDateTime expiry(long pid, String group) {
        return sql(pool, "SELECT lease_expires_at FROM exactly.consumer_cursors WHERE partition_id = $1 "
                + "AND consumer_group = $2", pid, group).iterator().next().getOffsetDateTime(0);
    }

    /** Lets {@code seconds} pass for the group's lease (its expiry, read and written back as a value). */
    private void elapse(long pid, String group, int seconds) {
        sql(pool, "UPDATE exactly.consumer_cursors SET lease_expires_at = $1 WHERE partition_id = $2 "
                + "AND consumer_group = $3", expiry(pid, group).minusSeconds(seconds), pid, group);
    }

    @Test
    void anExtendedLeaseOutlivesItsFirstExpiry() {
        String q = fresh("c-ext");
        pushMany(q, "p", "t", 2);
        List<Map<String, Object>> got = pop(Map.of("queue", q, "partition", "p", "consumerGroup", "g",
                "batch", 2, "leaseSeconds", 60));
        String lease = (String) got.get(0).get("leaseId");
        long pid = partitionId(pool, q, "p");

        JsonPath e = api().body("{\"leaseId\":\"" + lease + "\",\"leaseSeconds\":3600}").post("/api/v1/pop/extend")
                .then().statusCode(200).extract().jsonPath();
        assertEquals(q, e.getString("queue"));
        assertEquals("p", e.getString("partition"));
        assertEquals(1, e.getInt("toOffset"));
        OffsetDateTime until = OffsetDateTime.parse(e.getString("leaseExpiresAt"));
        assertTrue(until.isAfter(OffsetDateTime.now().plus(Duration.ofMinutes(50))), until.toString());
        assertEquals(until.toInstant(), expiry(pid, "g").toInstant(), "stored");

        elapse(pid, "g", 120);
        assertTrue(pop(q, "p", "g", 10).isEmpty(), "still held past the first 60 s");
        completeAll(got, "g");

        // an expired lease is not extended
        pushMany(q, "p", "u", 1);
        String late = (String) pop(q, "p", "g", 1).get(0).get("leaseId");
        elapse(pid, "g", 400);
        OffsetDateTime before = expiry(pid, "g");
        api().body("{\"leaseId\":\"" + late + "\",\"leaseSeconds\":600}").post("/api/v1/pop/extend").then()
                .statusCode(409).body("type", equalTo("/problems/lease-conflict"));
        assertEquals(before.toInstant(), expiry(pid, "g").toInstant(), "nothing changed");
    }

    @Test
    void theOperatorsFunctionsAnswerTheSameOnceTheirPlansAreCached() {
        // PostgreSQL may switch a statement to a generic plan after five executions on one
        // connection (the client's prepared statement and each function's own statements): call
        // each function a dozen times over one connection and compare every answer with the first
        String q = fresh("c-plans");
        pushMany(q, "p", "t", 3);
        String copy = deadLetterAll(q, "p", 2).get(0);
        String lease = (String) pop(q, "p", "h", 1).get(0).get("leaseId"); // another group
        SqlConnection conn = pool.getConnection().await().indefinitely();
        try {
            Map<String, Tuple> calls = new LinkedHashMap<>();
            calls.put("SELECT r_name, r_partitions, r_messages FROM exactly.queue_page($1, $2, $3)",
                    Tuple.of(null, q, 2));
            calls.put("SELECT r_name, r_partitions, r_messages FROM exactly.queue_page($1, $2, $3) WHERE r_name LIKE 'c-plans-%'",
                    Tuple.of(q.substring(0, q.length() - 1), null, 2));
            calls.put("SELECT r_group, r_lag FROM exactly.queue_group_lag($1)", Tuple.of(q));
            calls.put("SELECT r_dead_letter_id, r_dlq_offset FROM exactly.redrive_candidates($1, $2, $3, $4)",
                    Tuple.of(q + ".dlq", null, 10, 1_000_000L));
            calls.put("SELECT r_dead_letter_id, r_dlq_offset FROM exactly.redrive_candidates($1, $2, $3, $4) ",
                    Tuple.of(q + ".dlq", new UUID[] {UUID.fromString(copy)}, 10, 1_000_000L));
            calls.put("SELECT extended, queue, lease_from, lease_to FROM exactly.extend_lease($1, $2)",
                    Tuple.of(UUID.fromString(lease), 600));
            for (Map.Entry<String, Tuple> call : calls.entrySet()) {
                List<String> first = null;
                for (int i = 0; i < 12; i++) {
                    List<String> rows = new ArrayList<>();
                    for (Row r : conn.preparedQuery(call.getKey()).execute(call.getValue()).await().indefinitely()) {
                        rows.add(r.deepToString());
                    }
                    if (first == null) {
                        first = rows;
                        assertTrue(!rows.isEmpty(), call.getKey());
                    }
                    assertEquals(first, rows, "call " + (i + 1) + " of " + call.getKey());
                }
            }
        } finally {
            conn.close().await().indefinitely();
        }
    }

    private static HttpResponse<String> github(String source, String delivery) {
        byte[] body = ("{\"zen\":\"" + delivery + "\"}").getBytes(StandardCharsets.UTF_8);
        return post(source, body, "X-GitHub-Delivery", delivery, "X-Hub-Signature-256",
                Signing.github("gh-test-secret", body));
    }

    private static int window(String queue) {
        return api().get("/api/v1/queues/" + queue).then().statusCode(200).extract().path("options.dedupWindowSeconds");
    }

    @Test
    void aWebhookSourceSetsItsQueuesWindow() {
        // created with the source's window (exactly.webhooks.sources.short.window-seconds=120)
        String delivery = UUID.randomUUID().toString();
        HttpResponse<String> first = github("short", delivery);
        assertEquals("queued", verdict(first), first.body());
        assertEquals(120, window("webhooks.short"));
        HttpResponse<String> again = github("short", delivery);
        assertEquals("duplicate", verdict(again), again.body());
        assertEquals(messageId(first), messageId(again));

        // a queue a plain push created gets the preset's window in place of the default
        api().body("{\"items\":[{\"queue\":\"legacy.stripe\",\"transactionId\":\"" + UUID.randomUUID()
                + "\",\"payload\":{}}]}").post("/api/v1/push").then().statusCode(200);
        assertEquals(3600, window("legacy.stripe"));
        String event = "{\"id\":\"evt_" + UUID.randomUUID().toString().replace("-", "") + "\",\"object\":\"event\"}";
        String header = Signing.stripe("whsec_stripe-test-secret", System.currentTimeMillis() / 1000,
                event.getBytes(StandardCharsets.UTF_8));
        HttpResponse<String> r = post("legacy", event.getBytes(StandardCharsets.UTF_8), "Content-Type",
                "application/json", "Stripe-Signature", header);
        assertEquals("queued", verdict(r), r.body());
        assertEquals(4 * 86_400, window("legacy.stripe"));
    }

    @Test
    void maintenancePurgesPastRetentionAndKeepsHashesInTheWindow() {
        String q = fresh("c-ret");
        options(q, Map.of("retentionSeconds", 60, "dedupWindowSeconds", 3600));
        String original = (String) push(q, "p", "k1", "1").get("messageId");
        push(q, "p", "k2", "2");
        push(q, "p", "k3", "3");
        age(pool, q, "p", 0, 1, 120, true, false);
        api().get("/api/v1/messages/" + original).then().statusCode(200).body("transactionId", equalTo("k1"));

        Map<String, Object> report = maintenance();
        assertTrue(((Number) report.get("purgedMessages")).longValue() >= 2, report.toString());

        long pid = partitionId(pool, q, "p");
        assertEquals(1, longOf(pool, "SELECT count(*) FROM exactly.messages WHERE partition_id = $1", pid));
        assertEquals(3, longOf(pool, "SELECT count(*) FROM exactly.txn_hashes WHERE partition_id = $1", pid));
        assertEquals(2, longOf(pool, "SELECT data_start FROM exactly.partitions WHERE id = $1", pid));
        api().get("/api/v1/messages/" + original).then().statusCode(404);
        Map<String, Object> again = push(q, "p", "k1", "1");
        assertEquals("duplicate", again.get("status"));
        assertEquals(ZERO, again.get("messageId"));
        assertEquals(1, stats(q).getInt("messages"));

        // a hash past a short window goes with its message, and the key is new again
        String w = fresh("c-ret-win");
        options(w, Map.of("retentionSeconds", 60, "dedupWindowSeconds", 2));
        push(w, "p", "h1", "1");
        age(pool, w, "p", 0, 0, 120, true, true);
        maintenance();
        long wid = partitionId(pool, w, "p");
        assertEquals(0, longOf(pool, "SELECT count(*) FROM exactly.txn_hashes WHERE partition_id = $1", wid));
        assertEquals(1, longOf(pool, "SELECT txns_start FROM exactly.partitions WHERE id = $1", wid));
        assertEquals("queued", push(w, "p", "h1", "1").get("status"));
    }

    @Test
    void aStoredMessageIsReadById() {
        String q = fresh("c-read");
        String id = (String) push(q, "p", "r1", "{\"a\":1}").get("messageId");
        JsonPath m = api().get("/api/v1/messages/" + id).then().statusCode(200).extract().jsonPath();
        assertEquals(q, m.getString("queue"));
        assertEquals("p", m.getString("partition"));
        assertEquals(1, m.getInt("payload.a"));
    }
}
