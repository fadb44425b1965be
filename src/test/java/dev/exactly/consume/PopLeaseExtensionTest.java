package dev.exactly.consume;

import static dev.exactly.consume.ConsumeFixtures.ack;
import static dev.exactly.consume.ConsumeFixtures.ackById;
import static dev.exactly.consume.ConsumeFixtures.completeAll;
import static dev.exactly.consume.ConsumeFixtures.options;
import static dev.exactly.consume.ConsumeFixtures.partitionId;
import static dev.exactly.consume.ConsumeFixtures.pop;
import static dev.exactly.consume.ConsumeFixtures.pushMany;
import static dev.exactly.consume.ConsumeFixtures.sql;
import static dev.exactly.testing.Api.api;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Extending a pop lease (POST /api/v1/pop/extend, a consumer's heartbeat) against the embedded
 * PostgreSQL: only a lease its group still holds, unexpired, is extended; an expired, taken-over or
 * released one is a 409 that changes nothing. Time passing is simulated by moving the cursor's
 * lease_expires_at back, never by sleeping.
 */
@QuarkusTest
class PopLeaseExtensionTest {

    @Inject
    Pool pool;

    private static String fresh(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static Response extend(String body) {
        return api().body(body).post("/api/v1/pop/extend");
    }

    private static JsonPath extended(String lease, int seconds) {
        return extend("{\"leaseId\":\"" + lease + "\",\"leaseSeconds\":" + seconds + "}")
                .then().statusCode(200).extract().jsonPath();
    }

    /** Lets {@code seconds} pass for the group's lease on the partition (its expiry moves back). */
    private void elapse(String queue, String group, int seconds) {
        sql(pool, "UPDATE exactly.consumer_cursors SET lease_expires_at = lease_expires_at - make_interval(secs => $1::int) "
                + "WHERE partition_id = $2 AND consumer_group = $3", seconds, partitionId(pool, queue, "p"), group);
    }

    private OffsetDateTime expiry(String queue, String group) {
        return sql(pool, "SELECT lease_expires_at FROM exactly.consumer_cursors WHERE partition_id = $1 AND consumer_group = $2",
                partitionId(pool, queue, "p"), group).iterator().next().getOffsetDateTime(0);
    }

    @Test
    void anExtendedLeaseOutlivesItsFirstExpiryAndItsAckSucceeds() {
        String q = fresh("ext-pop");
        pushMany(q, "p", "t", 2);
        List<Map<String, Object>> got = pop(Map.of("queue", q, "partition", "p", "consumerGroup", "g",
                "batch", 2, "leaseSeconds", 60));
        String lease = (String) got.get(0).get("leaseId");

        JsonPath e = extended(lease, 3600);
        assertEquals(lease, e.getString("leaseId"));
        assertEquals(q, e.getString("queue"));
        assertEquals("p", e.getString("partition"));
        assertEquals("g", e.getString("consumerGroup"));
        assertEquals(0, e.getInt("fromOffset"));
        assertEquals(1, e.getInt("toOffset"));
        OffsetDateTime until = OffsetDateTime.parse(e.getString("leaseExpiresAt"));
        assertTrue(until.isAfter(OffsetDateTime.now().plus(Duration.ofMinutes(50))), "about an hour from now: " + until);

        elapse(q, "g", 120); // past the original 60 s, well inside the extension
        assertTrue(pop(q, "p", "g", 10).isEmpty(), "another consumer of the group does not get the partition");
        Map<String, Object> acked = ack(ackById(got.get(0), "g", "completed")).then().statusCode(200)
                .extract().jsonPath().getMap("");
        assertEquals("completed", acked.get("outcome"));
        assertEquals(1, ((Number) acked.get("attempts")).intValue(), "an extension is not a delivery");
        completeAll(got.subList(1, 2), "g");
    }

    @Test
    void withoutTheExtensionTheSameWaitLosesTheLease() {
        // the control of the test above: the same 120 s without an extension
        String q = fresh("ext-none");
        pushMany(q, "p", "t", 1);
        List<Map<String, Object>> got = pop(Map.of("queue", q, "partition", "p", "consumerGroup", "g",
                "batch", 1, "leaseSeconds", 60));
        elapse(q, "g", 120);
        assertEquals(1, pop(q, "p", "g", 10).size(), "taken over");
        ack(ackById(got.get(0), "g", "completed")).then().statusCode(409);
    }

    @Test
    void anExpiredLeaseCannotBeExtendedEvenBeforeItIsTakenOver() {
        String q = fresh("ext-late");
        pushMany(q, "p", "t", 1);
        String lease = (String) pop(q, "p", "g", 1).get(0).get("leaseId");
        elapse(q, "g", 400); // the queue's leaseTime is 300 s
        OffsetDateTime before = expiry(q, "g");

        extend("{\"leaseId\":\"" + lease + "\",\"leaseSeconds\":600}").then().statusCode(409)
                .contentType("application/problem+json").body("type", equalTo("/problems/lease-conflict"))
                .body("errors[0].field", equalTo("leaseId"));

        assertEquals(before.toInstant(), expiry(q, "g").toInstant(), "nothing changed");
        List<Map<String, Object>> again = pop(q, "p", "g", 1);
        assertEquals(2, ((Number) again.get(0).get("attempts")).intValue(), "delivered again, as any expired lease");
    }

    @Test
    void aTakenOverLeaseCannotBeExtendedAndTheNewOneIsUntouched() {
        String q = fresh("ext-taken");
        pushMany(q, "p", "t", 1);
        String stale = (String) pop(q, "p", "g", 1).get(0).get("leaseId");
        elapse(q, "g", 400);
        String current = (String) pop(q, "p", "g", 1).get(0).get("leaseId");
        OffsetDateTime before = expiry(q, "g");

        extend("{\"leaseId\":\"" + stale + "\",\"leaseSeconds\":3600}").then().statusCode(409)
                .contentType("application/problem+json").body("type", equalTo("/problems/lease-conflict"));

        assertEquals(before.toInstant(), expiry(q, "g").toInstant(), "the other consumer's lease is untouched");
        extended(current, 600);
    }

    @Test
    void aReleasedLeaseCannotBeExtended() {
        String q = fresh("ext-done");
        pushMany(q, "p", "t", 1);
        List<Map<String, Object>> got = pop(q, "p", "g", 1);
        completeAll(got, "g");
        extend("{\"leaseId\":\"" + got.get(0).get("leaseId") + "\"}").then().statusCode(409);
        extend("{\"leaseId\":\"" + UUID.randomUUID() + "\"}").then().statusCode(409)
                .body("type", equalTo("/problems/lease-conflict"));
    }

    @Test
    void withoutLeaseSecondsTheQueuesLeaseTimeIsTaken() {
        String q = fresh("ext-default");
        pushMany(q, "p", "t", 1);
        options(q, Map.of("leaseTime", 5000));
        String lease = (String) pop(Map.of("queue", q, "partition", "p", "consumerGroup", "g", "leaseSeconds", 10))
                .get(0).get("leaseId");

        OffsetDateTime until = OffsetDateTime.parse(extend("{\"leaseId\":\"" + lease + "\"}").then().statusCode(200)
                .extract().jsonPath().getString("leaseExpiresAt"));

        OffsetDateTime now = OffsetDateTime.now();
        assertTrue(until.isAfter(now.plusSeconds(4900)) && until.isBefore(now.plusSeconds(5100)), until.toString());
    }

    @Test
    void badExtensionsAreRefusedAndChangeNothing() {
        String q = fresh("ext-bad");
        pushMany(q, "p", "t", 1);
        String lease = (String) pop(q, "p", "g", 1).get(0).get("leaseId");
        OffsetDateTime before = expiry(q, "g");
        for (String body : new String[] {"{}", "{\"leaseId\":\"x\"}", "{\"leaseId\":null}",
                "{\"leaseId\":\"" + lease + "\",\"leaseSeconds\":0}",
                "{\"leaseId\":\"" + lease + "\",\"leaseSeconds\":604801}",
                "{\"leaseId\":\"" + lease + "\",\"leaseSeconds\":\"60\"}",
                "{\"leaseId\":\"" + lease + "\",\"until\":1}",
                "{\"leaseId\":\"" + lease + "\",\"consumerGroup\":\"g\"}",
                "{\"leaseId\":\"" + lease + "\",\"leaseId\":\"" + lease + "\"}", "[]", "not json"}) {
            extend(body).then().statusCode(400).contentType("application/problem+json");
        }
        extend("{\"leaseId\":\"" + lease + "\",\"until\":1}").then().body("errors[0].field", equalTo("until"));
        api().queryParam("queue", q).body("{\"leaseId\":\"" + lease + "\"}").post("/api/v1/pop/extend")
                .then().statusCode(400);
        assertEquals(before.toInstant(), expiry(q, "g").toInstant(), "nothing changed");
        // the longest lease is accepted
        extended(lease, 604800);
    }
}
