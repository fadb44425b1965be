package dev.exactly.consume;

import static dev.exactly.testing.Api.api;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.restassured.response.Response;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Test helpers for consumption, transactions and retention: API calls and direct SQL. */
public final class ConsumeFixtures {

    private ConsumeFixtures() {
    }

    /** Pushes one JSON item and returns its result (status, messageId, …). */
    public static Map<String, Object> push(String queue, String partition, String txn, String payloadJson) {
        String item = "{\"queue\":\"" + queue + "\",\"partition\":\"" + partition + "\""
                + (txn == null ? "" : ",\"transactionId\":\"" + txn + "\"") + ",\"payload\":" + payloadJson + "}";
        return api().body("{\"items\":[" + item + "]}").post("/api/v1/push")
                .then().statusCode(200).extract().jsonPath().getMap("results[0]");
    }

    /** Pushes {@code n} items with transactionIds prefix0..prefix(n-1), in one request; returns their message ids. */
    public static List<String> pushMany(String queue, String partition, String prefix, int n) {
        StringBuilder b = new StringBuilder("{\"items\":[");
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "" : ",").append("{\"queue\":\"").append(queue).append("\",\"partition\":\"")
                    .append(partition).append("\",\"transactionId\":\"").append(prefix).append(i)
                    .append("\",\"payload\":{\"n\":").append(i).append("}}");
        }
        b.append("]}");
        return api().body(b.toString()).post("/api/v1/push").then().statusCode(200)
                .extract().jsonPath().getList("results.messageId", String.class);
    }

    /** Merges queue options (PATCH /api/v1/queues/{queue}). */
    public static void options(String queue, Map<String, Integer> options) {
        api().body(Map.of("options", options)).patch("/api/v1/queues/" + queue).then().statusCode(200);
    }

    /** POST /api/v1/pop with these fields; returns the messages. */
    public static List<Map<String, Object>> pop(Map<String, Object> body) {
        return api().body(body).post("/api/v1/pop").then().statusCode(200)
                .extract().jsonPath().getList("messages");
    }

    /** Pops up to {@code batch} messages of one partition for a group. */
    public static List<Map<String, Object>> pop(String queue, String partition, String group, int batch) {
        Map<String, Object> body = new HashMap<>();
        body.put("queue", queue);
        if (partition != null) {
            body.put("partition", partition);
        }
        body.put("consumerGroup", group);
        body.put("batch", batch);
        return pop(body);
    }

    /** An ack body by messageId. */
    public static Map<String, Object> ackById(Map<String, Object> message, String group, String status) {
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("messageId", message.get("messageId"));
        a.put("leaseId", message.get("leaseId"));
        a.put("consumerGroup", group);
        a.put("status", status);
        return a;
    }

    /** An ack body by transactionId. */
    public static Map<String, Object> ackByTxn(String queue, String partition, String txn, Object leaseId,
                                               String group, String status) {
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("queue", queue);
        a.put("partition", partition);
        a.put("transactionId", txn);
        a.put("leaseId", leaseId);
        a.put("consumerGroup", group);
        a.put("status", status);
        return a;
    }

    /** POST /api/v1/ack. */
    public static Response ack(Map<String, Object> ack) {
        return api().body(ack).post("/api/v1/ack");
    }

    /** POST /api/v1/ack/batch; returns the per-item results. */
    public static List<Map<String, Object>> ackBatch(List<Map<String, Object>> acks) {
        return api().body(Map.of("items", acks)).post("/api/v1/ack/batch").then().statusCode(200)
                .extract().jsonPath().getList("results");
    }

    /** Acks every message completed, in one batch; asserts each was acked. */
    public static void completeAll(List<Map<String, Object>> messages, String group) {
        List<Map<String, Object>> acks = new ArrayList<>();
        for (Map<String, Object> m : messages) {
            acks.add(ackById(m, group, "completed"));
        }
        for (Map<String, Object> r : ackBatch(acks)) {
            if (!"acked".equals(r.get("result"))) {
                throw new AssertionError("not acked: " + r);
            }
        }
    }

    /** Runs the maintenance job through the admin endpoint; returns its report. */
    public static Map<String, Object> maintenance() {
        return api().post("/api/v1/admin/maintenance").then().statusCode(200).extract().jsonPath().getMap("");
    }

    /** Runs SQL on the application's database. */
    public static RowSet<Row> sql(Pool pool, String sql, Object... args) {
        return pool.preparedQuery(sql).execute(Tuple.from(args)).await().indefinitely();
    }

    /** A single long from SQL. */
    public static long longOf(Pool pool, String sql, Object... args) {
        return sql(pool, sql, args).iterator().next().getLong(0);
    }

    /** The id of a queue's partition. */
    public static long partitionId(Pool pool, String queue, String partition) {
        return longOf(pool, "SELECT p.id FROM exactly.partitions p JOIN exactly.queues q ON q.id = p.queue_id "
                + "WHERE q.name = $1 AND p.name = $2", queue, partition);
    }

    /**
     * Moves a partition's messages and hashes back in time by {@code seconds}, for offsets in [from, to].
     * Each row gets its new time as a value (read, shifted here, written back by key): a
     * distributed database (Citus) runs no stable function of a column, such as
     * {@code created_at - interval}, in an UPDATE.
     */
    public static void age(Pool pool, String queue, String partition, long from, long to, int seconds,
                           boolean messages, boolean hashes) {
        long pid = partitionId(pool, queue, partition);
        if (messages) {
            shift(pool, "messages", "\"offset\"", pid, from, to, seconds);
        }
        if (hashes) {
            shift(pool, "txn_hashes", "\"offset\", hash", pid, from, to, seconds);
        }
    }

    private static void shift(Pool pool, String table, String key, long pid, long from, long to, int seconds) {
        List<Tuple> rows = new ArrayList<>();
        for (Row r : sql(pool, "SELECT " + key + ", created_at FROM exactly." + table
                + " WHERE partition_id = $1 AND \"offset\" BETWEEN $2 AND $3", pid, from, to)) {
            Tuple t = Tuple.of(r.getOffsetDateTime("created_at").minusSeconds(seconds), pid, r.getLong("offset"));
            rows.add(table.equals("txn_hashes") ? t.addValue(r.getBuffer("hash").getDelegate()) : t);
        }
        if (rows.isEmpty()) {
            return;
        }
        pool.preparedQuery("UPDATE exactly." + table + " SET created_at = $1 WHERE partition_id = $2 AND \"offset\" = $3"
                + (table.equals("txn_hashes") ? " AND hash = $4" : "")).executeBatch(rows).await().indefinitely();
    }

    /** Pops every message of queue/partition for group g and acks each "dlq"; returns the copies' ids. */
    public static List<String> deadLetterAll(String queue, String partition, int n) {
        List<Map<String, Object>> got = pop(queue, partition, "g", n);
        assertEquals(n, got.size());
        List<Map<String, Object>> acks = new ArrayList<>();
        for (Map<String, Object> m : got) {
            acks.add(ackById(m, "g", "dlq"));
        }
        List<String> copies = new ArrayList<>();
        for (Map<String, Object> r : ackBatch(acks)) {
            assertEquals("dead-lettered", r.get("outcome"), r.toString());
            copies.add((String) r.get("deadLetterMessageId"));
        }
        return copies;
    }
}
