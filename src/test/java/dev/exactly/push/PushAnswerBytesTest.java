package dev.exactly.push;

import static dev.exactly.consume.ConsumeFixtures.partitionId;
import static dev.exactly.consume.ConsumeFixtures.sql;
import static dev.exactly.testing.Api.api;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The push answer's exact bytes: members in the records' declaration order (index, queue,
 * partition, transactionId, messageId, status, payloadMatches, problem; a problem's type, title,
 * status, detail, errors), absent members left out rather than written as null, no whitespace.
 * The other tests read answers as JSON trees, which a change of member order or an added
 * {@code "problem":null} would pass; producers that compare or log answers see the bytes. The
 * expected text is built from the database's rows, not from the answer.
 */
@QuarkusTest
class PushAnswerBytesTest {

    @Inject
    Pool pool;

    private static String item(String queue, String txn, String payload) {
        return "{\"queue\":\"" + queue + "\",\"partition\":\"p\",\"transactionId\":\"" + txn + "\",\"payload\":"
                + payload + "}";
    }

    private static String answer(String body, int status) {
        byte[] bytes = api().body(body).post("/api/v1/push").then().statusCode(status).extract().asByteArray();
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private Map<String, String> storedIds(String queue) {
        Map<String, String> ids = new HashMap<>();
        for (Row r : sql(pool, "SELECT transaction_id, message_id FROM exactly.messages WHERE partition_id = $1",
                partitionId(pool, queue, "p"))) {
            ids.put(r.getString(0), r.getUUID(1).toString());
        }
        return ids;
    }

    private static String result(int index, String queue, String txn, String id, String status) {
        return "{\"index\":" + index + ",\"queue\":\"" + queue + "\",\"partition\":\"p\",\"transactionId\":\"" + txn
                + "\",\"messageId\":\"" + id + "\",\"status\":\"" + status + "\"";
    }

    private static String mismatchProblem(String where, int index, String txn, String queue, String original) {
        return "{\"type\":\"/problems/payload-mismatch\",\"title\":\"Payload mismatch\",\"status\":422,\"detail\":\""
                + where + "transactionId '" + txn + "' is already stored in queue " + queue + ", partition p (message "
                + original + ") with another payload; nothing was written for "
                + (where.isEmpty() ? "it" : "this item") + " (the queue's payloadMismatch is reject)\","
                + "\"errors\":[{\"index\":" + index + ",\"field\":\"payload\",\"message\":"
                + "\"differs from the payload stored under this transactionId\"}]}";
    }

    @Test
    void aHundredItemAnswerWithADuplicateAndARejectedItemIsExactlyTheseBytes() {
        String q = "bytes-" + UUID.randomUUID();
        api().body("{\"options\":{\"payloadMismatch\":\"reject\"}}").patch("/api/v1/queues/" + q).then().statusCode(200);
        answer("{\"items\":[" + item(q, "dup", "1") + "," + item(q, "rej", "1") + "]}", 200);
        Map<String, String> originals = storedIds(q);

        StringBuilder body = new StringBuilder("{\"items\":[");
        for (int i = 0; i < 100; i++) {
            String txn = i == 5 ? "rej" : i == 50 ? "dup" : "k-" + i;
            body.append(i == 0 ? "" : ",").append(item(q, txn, i == 5 ? "2" : "1"));
        }
        String actual = answer(body.append("]}").toString(), 200);

        Map<String, String> ids = storedIds(q);
        assertEquals(100, ids.size(), "98 new items stored next to the two originals");
        StringBuilder expected = new StringBuilder("{\"results\":[");
        for (int i = 0; i < 100; i++) {
            expected.append(i == 0 ? "" : ",");
            if (i == 5) {
                expected.append(result(i, q, "rej", originals.get("rej"), "rejected")).append(",\"payloadMatches\":false")
                        .append(",\"problem\":").append(mismatchProblem("items[5]: ", 5, "rej", q, originals.get("rej")))
                        .append('}');
            } else if (i == 50) {
                expected.append(result(i, q, "dup", originals.get("dup"), "duplicate")).append(",\"payloadMatches\":true}");
            } else {
                expected.append(result(i, q, "k-" + i, ids.get("k-" + i), "queued")).append('}');
            }
        }
        assertEquals(expected.append("]}").toString(), actual);
    }

    @Test
    void aOneItemRequestsRejectionIsExactlyThisProblem() {
        String q = "bytes-one-" + UUID.randomUUID();
        api().body("{\"options\":{\"payloadMismatch\":\"reject\"}}").patch("/api/v1/queues/" + q).then().statusCode(200);
        answer("{\"items\":[" + item(q, "k", "1") + "]}", 200);
        String original = storedIds(q).get("k");

        assertEquals(mismatchProblem("items[0]: ", 0, "k", q, original),
                answer("{\"items\":[" + item(q, "k", "2") + "]}", 422));
    }
}
