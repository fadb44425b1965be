package dev.exactly.queue;

import static dev.exactly.testing.Api.api;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasSize;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.exactly.testing.Db;
import io.quarkus.test.junit.QuarkusTest;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Queue options: /configure is a full replace that says what it reset; PATCH merges; GET shows. */
@QuarkusTest
class QueueResourceTest {

    @Test
    void configureWithoutTheWindowResetsItTo3600AndSaysSo() {
        String q = "cfg-" + UUID.randomUUID();
        api().body("{\"queue\":\"" + q + "\",\"options\":{\"dedupWindowSeconds\":60,\"retryLimit\":5}}")
                .post("/api/v1/configure").then().statusCode(200)
                .body("options.dedupWindowSeconds", equalTo(60)).body("options.retryLimit", equalTo(5))
                .body("reset", hasSize(0));
        api().body("{\"queue\":\"" + q + "\",\"options\":{\"retryLimit\":5}}")
                .post("/api/v1/configure").then().statusCode(200)
                .body("options.dedupWindowSeconds", equalTo(3600))
                .body("reset", hasSize(1))
                .body("reset[0].option", equalTo("dedupWindowSeconds"))
                .body("reset[0].from", equalTo(60)).body("reset[0].to", equalTo(3600))
                .body("defaulted", hasItem("dedupWindowSeconds"));
        api().get("/api/v1/queues/" + q).then().statusCode(200).body("options.dedupWindowSeconds", equalTo(3600));
    }

    @Test
    void patchMergesAndLeavesOmittedOptionsAlone() {
        String q = "patch-" + UUID.randomUUID();
        api().body("{\"options\":{\"dedupWindowSeconds\":0}}").patch("/api/v1/queues/" + q).then().statusCode(200)
                .body("options.dedupWindowSeconds", equalTo(0));
        api().body("{\"options\":{\"retentionSeconds\":86400}}").patch("/api/v1/queues/" + q).then().statusCode(200)
                .body("options.dedupWindowSeconds", equalTo(0)).body("options.retentionSeconds", equalTo(86400));
    }

    @Test
    void aQueueCreatedByAPushHasTheDefaultOptionsOfTheJavaSide() {
        String q = "dflt-" + UUID.randomUUID();
        api().body("{\"items\":[{\"queue\":\"" + q + "\",\"payload\":1}]}").post("/api/v1/push").then().statusCode(200);
        // the column defaults (sql/V1__schema.sql) must equal QueueOption's defaults
        for (QueueOption o : QueueOption.values()) {
            if (o.named()) {
                assertEquals(1, Db.number("SELECT count(*) FROM exactly.queues WHERE name = '" + q + "' AND "
                        + o.column() + " = '" + o.toWire(o.defaultValue()) + "'"), o.wire());
            } else {
                assertEquals(o.defaultValue(), Db.number("SELECT " + o.column() + " FROM exactly.queues WHERE name = '"
                        + q + "'"), o.wire());
            }
        }
        api().get("/api/v1/queues/" + q).then().statusCode(200).body("queue", equalTo(q));
    }

    @Test
    void anOptionBeyondTheIntegerRangeNamesTheRangeAndWritesNothing() {
        String q = "big-" + UUID.randomUUID();
        api().body("{\"queue\":\"" + q + "\",\"options\":{\"dedupWindowSeconds\":2147483648}}")
                .post("/api/v1/configure").then().statusCode(400).contentType("application/problem+json")
                .body("errors[0].field", equalTo("options.dedupWindowSeconds"))
                .body("errors[0].message", equalTo("must be an integer from 0 to 2147483647"));
        api().body("{\"queue\":\"" + q + "\",\"options\":{\"dedupWindowSeconds\":1.5}}")
                .post("/api/v1/configure").then().statusCode(400)
                .body("errors[0].message", equalTo("must be an integer"));
        api().get("/api/v1/queues/" + q).then().statusCode(404);
    }

    /** A repeated option is named where it sits, as an unknown one is (a new-user check: it was "retryLimit"). */
    @Test
    void aRepeatedOptionIsNamedWithItsPathAndWritesNothing() {
        String q = "dup-" + UUID.randomUUID();
        api().body("{\"options\":{\"retryLimit\":1,\"retryLimit\":2}}").patch("/api/v1/queues/" + q)
                .then().statusCode(400).contentType("application/problem+json")
                .body("errors[0].field", equalTo("options.retryLimit"));
        api().body("{\"queue\":\"" + q + "\",\"options\":{\"retryLimit\":1,\"retryLimit\":2}}")
                .post("/api/v1/configure").then().statusCode(400)
                .body("errors[0].field", equalTo("options.retryLimit"));
        api().get("/api/v1/queues/" + q).then().statusCode(404);
    }

    @Test
    void unknownQueueIs404() {
        api().get("/api/v1/queues/none-" + UUID.randomUUID()).then().statusCode(404)
                .contentType("application/problem+json").body("type", equalTo("/problems/not-found"));
    }

    /**
     * leaseTime is bounded by the longest lease a pop may ask for (7 days): a new-user check set it
     * to 2147483647 and got a 68-year lease by default, holding the partition for good.
     */
    @Test
    void leaseTimeIsBoundedByTheLongestLeaseAndAnOverlongOneWritesNothing() {
        String q = "lease-" + UUID.randomUUID();
        api().body("{\"options\":{\"leaseTime\":604801}}").patch("/api/v1/queues/" + q).then()
                .statusCode(400).contentType("application/problem+json")
                .body("errors[0].field", equalTo("options.leaseTime"))
                .body("errors[0].message", equalTo("must be at most 604800"));
        api().body("{\"queue\":\"" + q + "\",\"options\":{\"leaseTime\":2147483647}}").post("/api/v1/configure")
                .then().statusCode(400).body("errors[0].field", equalTo("options.leaseTime"));
        api().get("/api/v1/queues/" + q).then().statusCode(404);
        api().body("{\"options\":{\"leaseTime\":604800}}").patch("/api/v1/queues/" + q).then()
                .statusCode(200).body("options.leaseTime", equalTo(604800));
    }

    /**
     * A configure without options would return every option to its default, and a patch without
     * them would change nothing: both are refused, and {@code "options":{}} says either on purpose.
     */
    @Test
    void optionsAreRequiredAndAnEmptyObjectIsTheDeliberateForm() {
        String q = "noopt-" + UUID.randomUUID();
        for (String body : new String[] {"{\"queue\":\"" + q + "\"}", "{\"queue\":\"" + q + "\",\"options\":null}"}) {
            api().body(body).post("/api/v1/configure").then().statusCode(400).contentType("application/problem+json")
                    .body("errors[0].field", equalTo("options"));
        }
        api().body("{}").patch("/api/v1/queues/" + q).then().statusCode(400).body("errors[0].field", equalTo("options"));
        api().get("/api/v1/queues/" + q).then().statusCode(404);
        api().body("{\"options\":{\"retryLimit\":7}}").patch("/api/v1/queues/" + q).then().statusCode(200);
        api().body("{\"options\":{}}").patch("/api/v1/queues/" + q).then().statusCode(200).body("options.retryLimit", equalTo(7));
        api().body("{\"queue\":\"" + q + "\",\"options\":{}}").post("/api/v1/configure").then().statusCode(200)
                .body("options.retryLimit", equalTo(3)).body("reset[0].option", equalTo("retryLimit"));
    }
}
