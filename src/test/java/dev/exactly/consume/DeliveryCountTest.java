package dev.exactly.consume;

import static dev.exactly.consume.ConsumeFixtures.ack;
import static dev.exactly.consume.ConsumeFixtures.ackById;
import static dev.exactly.consume.ConsumeFixtures.completeAll;
import static dev.exactly.consume.ConsumeFixtures.options;
import static dev.exactly.consume.ConsumeFixtures.partitionId;
import static dev.exactly.consume.ConsumeFixtures.pop;
import static dev.exactly.consume.ConsumeFixtures.push;
import static dev.exactly.consume.ConsumeFixtures.pushMany;
import static dev.exactly.consume.ConsumeFixtures.sql;
import static dev.exactly.testing.Api.api;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * attempts counts deliveries (as SQS's ApproximateReceiveCount counts receives, and as a task's
 * attempts counts claims): a failed ack and an expired lease each end one, and a message is
 * delivered at most 1 + retryLimit times before it goes to the dead-letter queue.
 */
@QuarkusTest
class DeliveryCountTest {

    @Inject
    Pool pool;

    /** The consumer died holding its lease: the lease is now past its expiry. */
    private void expireLease(String queue, String partition, String group) {
        sql(pool, "UPDATE exactly.consumer_cursors SET lease_expires_at = now() - interval '1 second' "
                + "WHERE partition_id = $1 AND consumer_group = $2", partitionId(pool, queue, partition), group);
    }

    private static int attempts(Map<String, Object> m) {
        return ((Number) m.get("attempts")).intValue();
    }

    @Test
    void aMessageThatKillsItsConsumerEndsUpInTheDeadLetterQueue() {
        options("dc-crash", Map.of("retryLimit", 2));
        push("dc-crash", "p", "poison", "{\"kills\":\"the consumer\"}");
        push("dc-crash", "p", "next", "{\"fine\":true}");
        Map<String, Object> last = null;
        for (int delivery = 1; delivery <= 3; delivery++) {
            List<Map<String, Object>> got = pop("dc-crash", "p", "g", 1);
            assertEquals(1, got.size(), "delivery " + delivery);
            last = got.get(0);
            assertEquals("poison", last.get("transactionId"));
            assertEquals(delivery, attempts(last), "attempts numbers the delivery");
            expireLease("dc-crash", "p", "g"); // no ack: the consumer crashed
        }
        // 1 + retryLimit deliveries used up: the next pop dead-letters it and moves on in order
        List<Map<String, Object>> next = pop("dc-crash", "p", "g", 5);
        assertEquals(1, next.size());
        assertEquals("next", next.get(0).get("transactionId"));
        assertEquals(1, attempts(next.get(0)));

        List<Map<String, Object>> dead = pop("dc-crash.dlq", "p", "ops", 5);
        assertEquals(1, dead.size());
        @SuppressWarnings("unchecked")
        Map<String, Object> origin = (Map<String, Object>) ((Map<String, Object>) dead.get(0).get("headers"))
                .get("x-exactly-dead-letter");
        assertEquals(last.get("messageId"), origin.get("messageId"));
        assertEquals("poison", origin.get("transactionId"));
        assertEquals(3, ((Number) origin.get("attempts")).intValue());
        assertEquals("lease-expired", origin.get("status"));
        assertEquals("lease expired", origin.get("error"));
        assertEquals(Map.of("kills", "the consumer"), dead.get(0).get("payload"));

        // the dead consumer's late ack changes nothing
        ack(ackById(last, "g", "completed")).then().statusCode(409).body("type", equalTo("/problems/lease-mismatch"));
        completeAll(next, "g");
        assertTrue(pop("dc-crash", "p", "g", 5).isEmpty());
        assertEquals(1, pop("dc-crash.dlq", "p", "ops2", 5).size(), "one copy only");
    }

    @Test
    void withRetryLimitZeroOneExpiredLeaseDeadLetters() {
        options("dc-zero", Map.of("retryLimit", 0));
        push("dc-zero", "p", "once", "1");
        assertEquals(1, attempts(pop("dc-zero", "p", "g", 1).get(0)));
        expireLease("dc-zero", "p", "g");
        assertTrue(pop("dc-zero", "p", "g", 1).isEmpty(), "dead-lettered, nothing left");
        assertEquals(1, pop("dc-zero.dlq", "p", "g", 1).size());
    }

    @Test
    void failedAcksAndExpiredLeasesEndDeliveriesAlike() {
        options("dc-mix", Map.of("retryLimit", 2));
        push("dc-mix", "p", "m", "1");
        Map<String, Object> m = pop("dc-mix", "p", "g", 1).get(0);
        assertEquals(1, attempts(m));
        ack(ackById(m, "g", "failed")).then().statusCode(200).body("outcome", equalTo("retry"))
                .body("attempts", equalTo(1));
        m = pop("dc-mix", "p", "g", 1).get(0);
        assertEquals(2, attempts(m));
        expireLease("dc-mix", "p", "g");
        m = pop("dc-mix", "p", "g", 1).get(0);
        assertEquals(3, attempts(m), "the expired lease ended delivery 2");
        ack(ackById(m, "g", "failed")).then().statusCode(200).body("outcome", equalTo("dead-lettered"))
                .body("attempts", equalTo(3));
        assertTrue(pop("dc-mix", "p", "g", 1).isEmpty());
    }

    @Test
    void onlyTheMessagesAnExpiredLeaseLeftUnackedAreCharged() {
        options("dc-part", Map.of("retryLimit", 1));
        pushMany("dc-part", "p", "t", 3);
        List<Map<String, Object>> got = pop("dc-part", "p", "g", 3);
        ack(ackById(got.get(0), "g", "completed")).then().statusCode(200).body("attempts", equalTo(1));
        ack(ackById(got.get(1), "g", "retry")).then().statusCode(200).body("outcome", equalTo("retry"));
        expireLease("dc-part", "p", "g");
        List<Map<String, Object>> again = pop("dc-part", "p", "g", 3);
        assertEquals(2, again.size(), "the completed one is settled");
        assertEquals(got.get(1).get("messageId"), again.get(0).get("messageId"));
        assertEquals(2, attempts(again.get(0)), "its retry ack ended delivery 1, not charged again");
        assertEquals(2, attempts(again.get(1)), "the expired lease ended delivery 1");
        completeAll(again, "g");
        assertTrue(pop("dc-part", "p", "g", 3).isEmpty());
    }

    @Test
    void messagesAndTasksCountAttemptsAlike() throws Exception {
        options("dc-alike", Map.of("leaseTime", 1));
        push("dc-alike", "p", "m", "1");
        api().body(Map.of("queue", "dc-alike", "id", "t", "type", "job", "data", 1)).post("/api/v1/tasks")
                .then().statusCode(200);
        assertEquals(1, attempts(pop("dc-alike", "p", "g", 1).get(0)));
        assertEquals(1, api().body(Map.of("queue", "dc-alike", "limit", 1, "leaseSeconds", 1))
                .post("/api/v1/tasks/claim").then().statusCode(200).extract().jsonPath().getInt("tasks[0].attempts"));
        Thread.sleep(1200); // both leases expire unacked
        assertEquals(2, attempts(pop("dc-alike", "p", "g", 1).get(0)));
        assertEquals(2, api().body(Map.of("queue", "dc-alike", "limit", 1, "leaseSeconds", 1))
                .post("/api/v1/tasks/claim").then().statusCode(200).extract().jsonPath().getInt("tasks[0].attempts"));
    }
}
