package dev.exactly.redrive;

import static dev.exactly.consume.ConsumeFixtures.ackBatch;
import static dev.exactly.consume.ConsumeFixtures.ackById;
import static dev.exactly.consume.ConsumeFixtures.completeAll;
import static dev.exactly.consume.ConsumeFixtures.deadLetterAll;
import static dev.exactly.consume.ConsumeFixtures.longOf;
import static dev.exactly.consume.ConsumeFixtures.partitionId;
import static dev.exactly.consume.ConsumeFixtures.pop;
import static dev.exactly.consume.ConsumeFixtures.push;
import static dev.exactly.consume.ConsumeFixtures.pushMany;
import static dev.exactly.consume.ConsumeFixtures.sql;
import static dev.exactly.testing.Api.api;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Redrive of dead letters against the real PostgreSQL: a copy goes back to its origin queue and
 * partition under the key "redrive:&lt;copy id&gt;", is delivered again there although the
 * original transactionId is still inside the deduplication window, and is stored once however
 * often, and however concurrently, it is redriven.
 */
@QuarkusTest
class RedriveTest {

    @Inject
    Pool pool;


    private static Map<String, Object> redrive(String queue, String body) {
        return api().body(body).post("/api/v1/queues/" + queue + "/redrive")
                .then().statusCode(200).extract().jsonPath().getMap("");
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> results(Map<String, Object> answer) {
        return (List<Map<String, Object>>) answer.get("results");
    }

    private static long remaining(Map<String, Object> answer) {
        return ((Number) answer.get("remaining")).longValue();
    }

    private long stored(String queue, String partition, String txn) {
        return longOf(pool, "SELECT count(*) FROM exactly.messages WHERE partition_id = $1 AND transaction_id = $2",
                partitionId(pool, queue, partition), txn);
    }

    @Test
    @SuppressWarnings("unchecked")
    void aRedrivenMessageIsDeliveredAgainInItsOriginPartition() {
        Map<String, Object> original = push("rd-id", "p1", "order-1", "{\"n\":1}");
        String copy = deadLetterAll("rd-id", "p1", 1).get(0);
        assertTrue(pop("rd-id", "p1", "g", 5).isEmpty(), "dead-lettered: nothing left for g");

        Map<String, Object> answer = redrive("rd-id", "{\"messageIds\":[\"" + copy + "\"]}");
        Map<String, Object> r = results(answer).get(0);
        assertEquals("redriven", r.get("status"));
        assertEquals(copy, r.get("deadLetterId"));
        assertEquals("rd-id", r.get("queue"));
        assertEquals("p1", r.get("partition"));
        assertNotEquals(original.get("messageId"), r.get("messageId"));
        assertEquals(0L, remaining(answer));

        // the original's key "order-1" is inside the window, yet the redrive is delivered again
        List<Map<String, Object>> again = pop("rd-id", "p1", "g", 5);
        assertEquals(1, again.size());
        Map<String, Object> m = again.get(0);
        assertEquals(r.get("messageId"), m.get("messageId"));
        assertEquals("redrive:" + copy, m.get("transactionId"));
        assertEquals(Map.of("n", 1), m.get("payload"));
        Map<String, Object> header = (Map<String, Object>) ((Map<String, Object>) m.get("headers")).get("x-exactly-redrive");
        assertEquals(copy, header.get("deadLetterId"));
        assertEquals("rd-id.dlq", header.get("deadLetterQueue"));
        assertEquals("p1", header.get("deadLetterPartition"));
        assertEquals("order-1", header.get("transactionId"));
        assertEquals(original.get("messageId"), header.get("messageId"));
        assertEquals(1, ((Number) header.get("count")).intValue());
        assertTrue(header.get("redrivenAt") != null);

        // it fails again: the new copy redriven counts its second redrive
        List<Map<String, Object>> acks = List.of(ackById(m, "g", "dlq"));
        String copy2 = (String) ackBatch(acks).get(0).get("deadLetterMessageId");
        redrive("rd-id", "{\"messageIds\":[\"" + copy2 + "\"]}");
        Map<String, Object> third = pop("rd-id", "p1", "g", 5).get(0);
        Map<String, Object> header2 = (Map<String, Object>) ((Map<String, Object>) third.get("headers")).get("x-exactly-redrive");
        assertEquals(2, ((Number) header2.get("count")).intValue());
        completeAll(List.of(third), "g");
    }

    @Test
    void byIdAnswersDuplicateOnceRedrivenAndNotFoundForOthers() {
        push("rd-dup", "p", "a", "{}");
        String copy = deadLetterAll("rd-dup", "p", 1).get(0);
        String first = (String) results(redrive("rd-dup", "{\"messageIds\":[\"" + copy + "\"]}")).get(0).get("messageId");
        String unknown = UUID.randomUUID().toString();
        List<Map<String, Object>> again = results(redrive("rd-dup",
                "{\"messageIds\":[\"" + copy + "\",\"" + unknown + "\"]}"));
        assertEquals("duplicate", again.get(0).get("status"));
        assertEquals(first, again.get(0).get("messageId"));
        assertEquals("not-found", again.get(1).get("status"));
        assertEquals(unknown, again.get(1).get("deadLetterId"));
        assertEquals(1L, stored("rd-dup", "p", "redrive:" + copy));
    }

    @Test
    void allIsBoundedByLimitAndAnswersWhatRemains() {
        pushMany("rd-all", "p", "m", 3);
        List<String> copies = deadLetterAll("rd-all", "p", 3);
        Map<String, Object> a = redrive("rd-all", "{\"limit\":2}");
        assertEquals(List.of(copies.get(0), copies.get(1)), results(a).stream().map(r -> r.get("deadLetterId")).toList());
        assertEquals(1L, remaining(a));
        Map<String, Object> b = redrive("rd-all", "{}");
        assertEquals(List.of(copies.get(2)), results(b).stream().map(r -> r.get("deadLetterId")).toList());
        assertEquals("redriven", results(b).get(0).get("status"));
        assertEquals(0L, remaining(b));
        Map<String, Object> c = redrive("rd-all", "{}");
        assertTrue(results(c).isEmpty(), "all does not redrive a copy twice");
        assertEquals(0L, remaining(c));
        List<Map<String, Object>> back = pop("rd-all", "p", "g", 10);
        assertEquals(3, back.size());
        for (int i = 0; i < 3; i++) {
            assertEquals("redrive:" + copies.get(i), back.get(i).get("transactionId"), "origin order kept");
        }
        completeAll(back, "g");
    }

    @Test
    void allStopsAtTheByteBudgetOfOnePush() {
        String big = "{\"s\":\"" + "x".repeat(3_500_000) + "\"}";
        push("rd-bytes", "p", "big-1", big);
        push("rd-bytes", "p", "big-2", big);
        deadLetterAll("rd-bytes", "p", 1);
        deadLetterAll("rd-bytes", "p", 1);
        // 2 x 3.5 MB exceed exactly.push.max-body-bytes (6 MiB): one copy per call
        Map<String, Object> a = redrive("rd-bytes", "{\"limit\":10}");
        assertEquals(1, results(a).size());
        assertEquals(1L, remaining(a));
        Map<String, Object> b = redrive("rd-bytes", "{\"limit\":10}");
        assertEquals(1, results(b).size());
        assertEquals("redriven", results(b).get(0).get("status"));
        assertEquals(0L, remaining(b));
    }

    @Test
    void aRetriedRedriveWhoseRecordWasLostIsNotDoubled() {
        push("rd-retry", "p", "x", "{}");
        String copy = deadLetterAll("rd-retry", "p", 1).get(0);
        String first = (String) results(redrive("rd-retry", "{\"messageIds\":[\"" + copy + "\"]}")).get(0).get("messageId");
        // the answer, and the record, were lost after the push: only the idempotency key is left
        sql(pool, "DELETE FROM exactly.redrives WHERE dead_letter_id = $1", UUID.fromString(copy));
        Map<String, Object> retried = redrive("rd-retry", "{\"messageIds\":[\"" + copy + "\"]}");
        assertEquals("duplicate", results(retried).get(0).get("status"));
        assertEquals(first, results(retried).get(0).get("messageId"));
        sql(pool, "DELETE FROM exactly.redrives WHERE dead_letter_id = $1", UUID.fromString(copy));
        Map<String, Object> all = redrive("rd-retry", "{}");
        assertEquals("duplicate", results(all).get(0).get("status"));
        assertEquals(0L, remaining(all), "the duplicate answer is recorded too");
        assertEquals(1L, stored("rd-retry", "p", "redrive:" + copy));
    }

    @Test
    void concurrentRedrivesStoreEachCopyOnce() throws Exception {
        int n = 20;
        pushMany("rd-conc", "p", "c", n);
        List<String> copies = deadLetterAll("rd-conc", "p", n);
        int threads = 6;
        ExecutorService pool6 = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Map<String, Object>>> futures = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                String body = t % 2 == 0 ? "{}" : "{\"messageIds\":[\"" + String.join("\",\"", copies) + "\"]}";
                Callable<Map<String, Object>> call = () -> {
                    start.await();
                    return redrive("rd-conc", body);
                };
                futures.add(pool6.submit(call));
            }
            start.countDown();
            int redriven = 0;
            Set<String> ids = new HashSet<>();
            for (Future<Map<String, Object>> f : futures) {
                for (Map<String, Object> r : results(f.get())) {
                    assertTrue(Set.of("redriven", "duplicate").contains(r.get("status")), r.toString());
                    redriven += "redriven".equals(r.get("status")) ? 1 : 0;
                    ids.add((String) r.get("messageId"));
                }
            }
            assertEquals(n, redriven, "each copy redriven by exactly one call");
            assertEquals(n, ids.size(), "every answer names the one stored message of its copy");
        } finally {
            pool6.shutdownNow();
        }
        for (String copy : copies) {
            assertEquals(1L, stored("rd-conc", "p", "redrive:" + copy));
        }
        assertEquals(0L, remaining(redrive("rd-conc", "{}")));
        assertEquals(n, pop("rd-conc", "p", "g", 100).size());
    }

    @Test
    void badInputIsRefusedAndWritesNothing() {
        push("rd-bad", "p", "b", "{}");
        String copy = deadLetterAll("rd-bad", "p", 1).get(0);
        long lastOffset = longOf(pool, "SELECT last_offset FROM exactly.partitions WHERE id = $1",
                partitionId(pool, "rd-bad", "p"));
        String[][] cases = {
            {"{\"limit\":10,\"extra\":1}", "extra"},
            {"{\"limit\":0}", "limit"},
            {"{\"limit\":1001}", "limit"},
            {"{\"limit\":\"5\"}", "limit"},
            {"{\"messageIds\":[]}", "messageIds"},
            {"{\"messageIds\":[\"not-a-uuid\"]}", "messageIds[0]"},
            {"{\"messageIds\":[\"" + copy + "\"],\"limit\":1}", "limit"},
        };
        for (String[] c : cases) {
            api().body(c[0]).post("/api/v1/queues/rd-bad/redrive").then().statusCode(400)
                    .contentType(containsString("application/problem+json")).body("errors.field", hasItem(c[1]));
        }
        // an id is named where it sits in the body, as ErrorPath names nested values (the body has no items)
        api().body("{\"messageIds\":[\"" + copy + "\",\"nope\"]}").post("/api/v1/queues/rd-bad/redrive").then()
                .statusCode(400).body("detail", equalTo("messageIds[1]: must be a UUID"))
                .body("errors[0].field", equalTo("messageIds[1]")).body("errors[0].index", nullValue());
        api().body("[]").post("/api/v1/queues/rd-bad/redrive").then().statusCode(400)
                .contentType(containsString("application/problem+json"));
        api().body("{}").post("/api/v1/queues/bad!name/redrive").then().statusCode(400)
                .contentType(containsString("application/problem+json")).body("errors.field", hasItem("queue"));
        assertEquals(lastOffset, longOf(pool, "SELECT last_offset FROM exactly.partitions WHERE id = $1",
                partitionId(pool, "rd-bad", "p")), "nothing pushed");
        assertEquals(0L, longOf(pool, "SELECT count(*) FROM exactly.redrives WHERE dead_letter_id = $1",
                UUID.fromString(copy)));
    }

    @Test
    void aQueueWithoutDeadLettersHasNothingToRedrive() {
        Map<String, Object> a = redrive("rd-none", "{}");
        assertTrue(results(a).isEmpty());
        assertEquals(0L, remaining(a));
    }
}
