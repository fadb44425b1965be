package dev.exactly.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.exactly.queue.QueueOption;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * What a correct answer to a fuzzed request is, judged from the database before and after:
 * a refused request (4xx) wrote nothing; an accepted push gave every item the verdict the
 * stored state and first-wins order dictate, and wrote exactly its queued items; an accepted
 * configure stored exactly the options sent plus the defaults.
 */
final class FuzzOracle {

    private static final ObjectMapper JSON = new ObjectMapper();

    private FuzzOracle() {
    }

    /** Rows written by pushes: messages + transaction hashes + allocated offsets, and the number of queues. */
    static long[] footprint(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT (SELECT count(*) FROM exactly.messages) + (SELECT count(*) FROM exactly.txn_hashes) "
                        + "+ (SELECT coalesce(sum(last_offset + 1), 0) FROM exactly.partitions), "
                        + "(SELECT count(*) FROM exactly.queues), (SELECT count(*) FROM exactly.partitions), "
                        + "(SELECT coalesce(md5(string_agg(q::text, ',' ORDER BY id)), '') FROM exactly.queues q)")) {
            rs.next();
            return new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getString(4).hashCode()};
        }
    }

    /**
     * Every row of every table in the exactly schema, as row counts plus a digest of the rows
     * that change in place (queues, partitions, consumer cursors, deliveries, tasks): equal before
     * and after a refused request when it wrote nothing at all.
     */
    static String everything(Connection c) throws SQLException {
        StringBuilder sql = new StringBuilder("SELECT concat_ws(';'");
        List<String> tables = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'exactly' "
                        + "AND table_type = 'BASE TABLE' AND table_name NOT LIKE 'flyway%' ORDER BY 1")) {
            while (rs.next()) {
                tables.add(rs.getString(1));
            }
        }
        for (String t : tables) {
            boolean small = !t.equals("messages") && !t.equals("txn_hashes");
            // an order-free sum of each row's hash (PostgreSQL's own hash of the row's values): no
            // text conversion nor sort of the rows, which took most of a second per call once a
            // random run had stored tasks of several megabytes, twice per request of the fuzz
            // destination_state's configured_at is the instances' liveness mark of their configured destinations,
            // rewritten every DestinationRepository.CONFIGURED_MARK_EVERY_MS by the dispatcher, not by a request
            String row = t.equals("destination_state") ? "hashtextextended((to_jsonb(x) - 'configured_at')::text, 0)"
                    : "hash_record_extended(x, 0)";
            sql.append(", (SELECT count(*)").append(small ? " || ':' || coalesce(sum(" + row + "::numeric), 0)" : "")
                    .append(" FROM exactly.").append(t).append(" x)");
        }
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql.append(")").toString())) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** (queue, partition, transactionId) → stored message ids, for the given queues (null: all). */
    static Map<PushLedger.Key, List<UUID>> stored(Connection c, List<String> queues) throws SQLException {
        Map<PushLedger.Key, List<UUID>> out = new HashMap<>();
        try (PreparedStatement s = c.prepareStatement("SELECT q.name, p.name, m.transaction_id, m.message_id "
                + "FROM exactly.messages m JOIN exactly.partitions p ON p.id = m.partition_id "
                + "JOIN exactly.queues q ON q.id = p.queue_id WHERE ? OR q.name = ANY (?) ORDER BY m.\"offset\"")) {
            s.setBoolean(1, queues == null);
            Array a = c.createArrayOf("text", queues == null ? new Object[0] : queues.toArray());
            s.setArray(2, a);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    out.computeIfAbsent(new PushLedger.Key(rs.getString(1), rs.getString(2), rs.getString(3)),
                            k -> new ArrayList<>()).add(rs.getObject(4, UUID.class));
                }
            }
        }
        return out;
    }

    /**
     * Checks an accepted push.
     *
     * @param body     the request body
     * @param response the 200 answer
     * @param before   stored ids before the request
     * @param after    stored ids after it
     * @return null when correct, else what is wrong; {@code queued[0]} gets the number of queued items
     */
    static String checkPush(byte[] body, JsonNode response, Map<PushLedger.Key, List<UUID>> before,
                            Map<PushLedger.Key, List<UUID>> after, int[] queued) throws Exception {
        JsonNode items = JSON.readTree(body).get("items");
        JsonNode results = response.get("results");
        if (results == null || results.size() != items.size()) {
            return "not one result per item: " + response;
        }
        Map<PushLedger.Key, UUID> leaders = new HashMap<>();
        for (int i = 0; i < items.size(); i++) {
            JsonNode it = items.get(i);
            JsonNode res = results.get(i);
            String q = it.get("queue").textValue();
            String p = it.has("partition") && !it.get("partition").isNull() ? it.get("partition").textValue() : "Default";
            JsonNode t = it.get("transactionId");
            String txn = t == null || t.isNull() ? null : t.textValue();
            UUID id = UUID.fromString(res.get("messageId").asText());
            String status = res.get("status").asText();
            if (res.get("index").asInt() != i || !q.equals(res.get("queue").asText()) || !p.equals(res.get("partition").asText())) {
                return "result " + i + " does not address its item: " + res;
            }
            if (txn == null) {
                if (!"queued".equals(status) || !id.toString().equals(res.get("transactionId").asText())) {
                    return "an item without transactionId must be queued under its own id: " + res;
                }
                queued[0]++;
                continue;
            }
            if (!txn.equals(res.get("transactionId").asText())) {
                return "transactionId not echoed byte for byte: " + res;
            }
            PushLedger.Key key = new PushLedger.Key(q, p, txn);
            List<UUID> was = before.getOrDefault(key, List.of());
            UUID leader = leaders.get(key);
            String expected;
            UUID expectedId;
            if (!was.isEmpty()) {
                expected = "duplicate";
                expectedId = was.get(0);
            } else if (leader != null) {
                expected = "duplicate";
                expectedId = leader;
            } else {
                expected = "queued";
                expectedId = id;
                leaders.put(key, id);
                queued[0]++;
            }
            if (!expected.equals(status) || !expectedId.equals(id)) {
                return "item " + i + ": expected " + expected + " " + expectedId + ", answered " + res;
            }
            if (!Objects.equals(after.get(key), List.of(expectedId))) {
                return "item " + i + ": stored " + after.get(key) + ", expected exactly [" + expectedId + "]";
            }
        }
        return null;
    }

    /**
     * Checks an accepted configure: the answer (and so the row) holds the options sent and the
     * defaults of every omitted one.
     *
     * @return null when correct, else what is wrong
     */
    static String checkConfigure(byte[] body, JsonNode response) throws Exception {
        JsonNode req = JSON.readTree(body);
        JsonNode sent = req.get("options");
        JsonNode got = response.get("options");
        if (!req.get("queue").textValue().equals(response.get("queue").asText())) {
            return "configured another queue: " + response;
        }
        for (QueueOption o : QueueOption.values()) {
            String expected = sent != null && sent.has(o.wire()) ? sent.get(o.wire()).asText()
                    : String.valueOf(o.toWire(o.defaultValue()));
            if (!got.get(o.wire()).asText().equals(expected)) {
                return o.wire() + ": expected " + expected + ", answered " + response;
            }
        }
        return null;
    }
}
