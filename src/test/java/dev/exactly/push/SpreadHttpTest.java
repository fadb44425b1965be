package dev.exactly.push;

import static dev.exactly.testing.Api.api;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.exactly.engine.KeySpread;
import dev.exactly.engine.TransactionHash;
import dev.exactly.testing.Db;
import dev.exactly.webhook.Signing;
import dev.exactly.webhook.WebhookClient;
import io.quarkus.test.junit.QuarkusTest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The spreadPartitions queue option over HTTP: its bounds, a push routed by key, a named partition
 * refused (400, nothing written), a change refused while the queue holds hashes (409), the full
 * replace that would reset it, and webhook deliveries, which spread like any push.
 */
@QuarkusTest
class SpreadHttpTest {

    private static String queue(String prefix) {
        return prefix + "-" + UUID.randomUUID();
    }

    private static void spread(String q, int n) {
        api().body("{\"options\":{\"spreadPartitions\":" + n + "}}").patch("/api/v1/queues/" + q).then()
                .statusCode(200).body("options.spreadPartitions", equalTo(n));
    }

    @Test
    void theOptionIsZeroOrTwoTo1024() {
        String q = queue("bounds");
        for (String bad : new String[] {"1", "-1", "1025", "2147483648", "-2147483649", "99999999999999999999"}) {
            api().body("{\"options\":{\"spreadPartitions\":" + bad + "}}").patch("/api/v1/queues/" + q).then()
                    .statusCode(400).contentType("application/problem+json")
                    .body("errors[0].field", equalTo("options.spreadPartitions"))
                    .body("errors[0].message", equalTo("must be 0 (off) or from 2 to 1024"));
        }
        api().get("/api/v1/queues/" + q).then().statusCode(404);
        spread(q, 1024);
        spread(q, 0);
    }

    @Test
    void aPushIsRoutedByKeyAndANamedPartitionIsRefusedWithNothingWritten() {
        String q = queue("hot");
        spread(q, 16);
        api().body("{\"items\":[{\"queue\":\"" + q + "\",\"transactionId\":\"order-42\",\"payload\":1}]}")
                .post("/api/v1/push").then().statusCode(200)
                .body("results[0].partition", equalTo(KeySpread.partitionOf(TransactionHash.of("order-42"), 16)))
                .body("results[0].status", equalTo("queued"));
        api().body("{\"items\":[{\"queue\":\"" + q + "\",\"transactionId\":\"b\",\"payload\":1},"
                        + "{\"queue\":\"" + q + "\",\"partition\":\"eu\",\"transactionId\":\"c\",\"payload\":2}]}")
                .post("/api/v1/push").then().statusCode(400).contentType("application/problem+json")
                .body("errors[0].index", equalTo(1)).body("errors[0].field", equalTo("partition"))
                .body("detail", containsString("spreads its messages over 16 partitions"));
        assertEquals(1, Db.number("SELECT count(*) FROM exactly.messages m JOIN exactly.partitions p ON p.id = m.partition_id "
                + "JOIN exactly.queues q ON q.id = p.queue_id WHERE q.name = '" + q + "'"), "the refused request wrote nothing");
    }

    @Test
    void defaultAndNullMeanNoPartitionOnASpreadQueueInAPushAndInATransaction() {
        String q = queue("dflt");
        spread(q, 8);
        api().body("{\"items\":[{\"queue\":\"" + q + "\",\"partition\":\"Default\",\"transactionId\":\"a\",\"payload\":1},"
                        + "{\"queue\":\"" + q + "\",\"partition\":null,\"transactionId\":\"b\",\"payload\":1}]}")
                .post("/api/v1/push").then().statusCode(200)
                .body("results[0].partition", equalTo(KeySpread.partitionOf(TransactionHash.of("a"), 8)))
                .body("results[1].partition", equalTo(KeySpread.partitionOf(TransactionHash.of("b"), 8)));
        api().body("{\"operations\":[{\"type\":\"push\",\"items\":[{\"queue\":\"" + q
                        + "\",\"partition\":\"Default\",\"transactionId\":\"c\",\"payload\":1}]}]}")
                .post("/api/v1/transaction").then().statusCode(200)
                .body("results[0].items[0].partition", equalTo(KeySpread.partitionOf(TransactionHash.of("c"), 8)));
        assertEquals(0, Db.number("SELECT count(*) FROM exactly.partitions p JOIN exactly.queues q ON q.id = p.queue_id "
                + "WHERE q.name = '" + q + "' AND p.name = 'Default'"));
    }

    @Test
    void aPopOfAPartitionOutsideTheSpreadIsRefusedNamingTheRange() {
        String q = queue("pop-range");
        spread(q, 4);
        for (String bad : new String[] {"spread-4", "spread-99", "Default", "spread-01"}) {
            api().body("{\"queue\":\"" + q + "\",\"partition\":\"" + bad + "\"}").post("/api/v1/pop").then()
                    .statusCode(400).contentType("application/problem+json")
                    .body("errors[0].field", equalTo("partition"))
                    .body("detail", containsString("spread-0 to spread-3"));
        }
        api().body("{\"queue\":\"" + q + "\",\"partition\":\"spread-3\"}").post("/api/v1/pop").then()
                .statusCode(200).body("messages.size()", equalTo(0));
        // a queue that does not spread: any partition, an empty answer
        api().body("{\"queue\":\"" + queue("pop-plain") + "\",\"partition\":\"spread-99\"}").post("/api/v1/pop")
                .then().statusCode(200).body("messages.size()", equalTo(0));
        assertEquals(0, Db.number("SELECT count(*) FROM exactly.partitions p JOIN exactly.queues q ON q.id = p.queue_id "
                + "WHERE q.name = '" + q + "'"), "the refused pops wrote nothing");
    }

    @Test
    void aDeadLetterQueueCannotSpreadByKey() {
        String q = queue("dl") + ".dlq";
        api().body("{\"options\":{\"spreadPartitions\":4}}").patch("/api/v1/queues/" + q).then()
                .statusCode(400).contentType("application/problem+json")
                .body("errors[0].field", equalTo("options.spreadPartitions"))
                .body("detail", containsString("dead-letter queue"));
        api().body("{\"queue\":\"" + q + "\",\"options\":{\"spreadPartitions\":4}}").post("/api/v1/configure").then()
                .statusCode(400);
        api().get("/api/v1/queues/" + q).then().statusCode(404);
        // 0 (off) is its only value, and other options are free
        api().body("{\"options\":{\"spreadPartitions\":0,\"retryLimit\":1}}").patch("/api/v1/queues/" + q).then()
                .statusCode(200);
    }

    @Test
    void aChangeIsRefusedWhileTheQueueHoldsHashesAndAFullReplaceCannotDropItSilently() {
        String q = queue("held");
        spread(q, 4);
        spread(q, 8); // nothing pushed yet: free to change
        api().body("{\"items\":[{\"queue\":\"" + q + "\",\"transactionId\":\"k\",\"payload\":1}]}")
                .post("/api/v1/push").then().statusCode(200);
        api().body("{\"options\":{\"spreadPartitions\":16}}").patch("/api/v1/queues/" + q).then()
                .statusCode(409).contentType("application/problem+json")
                .body("type", containsString("spread-change-refused"))
                .body("errors[0].field", equalTo("options.spreadPartitions"))
                .body("detail", containsString("1 of its 1 partitions still hold transaction hashes"));
        // a full replace omitting the option would reset it to 0: refused the same way
        api().body("{\"queue\":\"" + q + "\",\"options\":{\"dedupWindowSeconds\":60}}").post("/api/v1/configure")
                .then().statusCode(409);
        api().get("/api/v1/queues/" + q).then().statusCode(200).body("options.spreadPartitions", equalTo(8))
                .body("options.dedupWindowSeconds", equalTo(3600));
        // the same value is no change
        api().body("{\"queue\":\"" + q + "\",\"options\":{\"spreadPartitions\":8,\"dedupWindowSeconds\":60}}")
                .post("/api/v1/configure").then().statusCode(200);
    }

    @Test
    void webhookDeliveriesSpreadByTheirKeyAlsoWhenTheSourceChoosesAPartition() throws Exception {
        spread("webhooks.gh-spread", 8);
        String delivery = UUID.randomUUID().toString();
        byte[] body = "{\"zen\":\"spread\"}".getBytes(StandardCharsets.UTF_8);
        HttpResponse<String> first = WebhookClient.post("gh-spread", body, "Content-Type", "application/json",
                "X-GitHub-Event", "push", "X-GitHub-Delivery", delivery,
                "X-Hub-Signature-256", Signing.github("gh-test-secret", body));
        assertEquals(200, first.statusCode(), first.body());
        assertEquals("queued", WebhookClient.verdict(first));
        assertEquals(1, Db.number("SELECT count(*) FROM exactly.messages m JOIN exactly.partitions p "
                + "ON p.id = m.partition_id WHERE m.message_id = '" + WebhookClient.messageId(first) + "' AND p.name = '"
                + KeySpread.partitionOf(TransactionHash.of(delivery), 8) + "'"), "stored in the delivery id's partition");
        // a source that takes its partition from a header: spread too, not refused (GitHub would not retry)
        String other = UUID.randomUUID().toString();
        HttpResponse<String> named = WebhookClient.post("gh-spread-named", body, "Content-Type", "application/json",
                "X-GitHub-Event", "push", "X-GitHub-Delivery", other,
                "X-Hub-Signature-256", Signing.github("gh-test-secret", body));
        assertEquals(200, named.statusCode(), named.body());
        assertEquals("queued", WebhookClient.verdict(named));
        org.hamcrest.MatcherAssert.assertThat(named.body(), containsString(
                "\"partition\":\"" + KeySpread.partitionOf(TransactionHash.of(other), 8) + "\""));
        assertEquals(0, Db.number("SELECT count(*) FROM exactly.partitions p JOIN exactly.queues q ON q.id = p.queue_id "
                + "WHERE q.name = 'webhooks.gh-spread' AND p.name = 'push'"), "the header's partition was not used");
        // its redelivery is a duplicate in the same partition
        HttpResponse<String> again = WebhookClient.post("gh-spread-named", body, "Content-Type", "application/json",
                "X-GitHub-Event", "push", "X-GitHub-Delivery", other,
                "X-Hub-Signature-256", Signing.github("gh-test-secret", body));
        assertEquals("duplicate", WebhookClient.verdict(again));
        assertEquals(WebhookClient.messageId(named), WebhookClient.messageId(again));
    }

    @Test
    void anAckByTransactionIdWithoutPartitionFindsTheKeysPartitionAlsoInATransaction() {
        String q = queue("ack");
        spread(q, 4);
        StringBuilder items = new StringBuilder();
        for (int i = 0; i < 12; i++) {
            items.append(i == 0 ? "" : ",").append("{\"queue\":\"").append(q).append("\",\"transactionId\":\"k-")
                    .append(i).append("\",\"payload\":").append(i).append("}");
        }
        api().body("{\"items\":[" + items + "]}").post("/api/v1/push").then().statusCode(200);
        java.util.Set<String> acked = new java.util.HashSet<>();
        for (int round = 0; round < 8 && acked.size() < 12; round++) {
            io.restassured.path.json.JsonPath popped = api().body("{\"queue\":\"" + q + "\",\"consumerGroup\":\"g\",\"batch\":20}")
                    .post("/api/v1/pop").then().statusCode(200).extract().jsonPath();
            java.util.List<java.util.Map<String, Object>> messages = popped.getList("messages");
            for (int i = 0; i < messages.size(); i++) {
                java.util.Map<String, Object> m = messages.get(i);
                String ack = "{\"queue\":\"" + q + "\",\"transactionId\":\"" + m.get("transactionId")
                        + "\",\"consumerGroup\":\"g\",\"leaseId\":\"" + m.get("leaseId") + "\",\"status\":\"completed\"}";
                if (i == 0) {
                    // inside a transaction too
                    api().body("{\"operations\":[" + ack.replaceFirst("\\{", "{\"type\":\"ack\",") + "]}")
                            .post("/api/v1/transaction").then().statusCode(200)
                            .body("results[0].ack.result", equalTo("acked"))
                            .body("results[0].ack.partition", equalTo(m.get("partition")));
                } else {
                    api().body(ack).post("/api/v1/ack").then().statusCode(200).body("result", equalTo("acked"))
                            .body("partition", equalTo(m.get("partition")))
                            .body("messageId", equalTo(m.get("messageId")));
                }
                // repeated: a replay, never unresolved
                api().body(ack).post("/api/v1/ack").then().statusCode(200).body("replay", equalTo(true));
                acked.add((String) m.get("transactionId"));
            }
        }
        assertEquals(12, acked.size(), "every message was popped and acked by its transactionId alone");
    }
}
