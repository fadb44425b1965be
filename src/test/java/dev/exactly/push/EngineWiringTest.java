package dev.exactly.push;

import static dev.exactly.testing.Api.api;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.config.FusionConfig;
import dev.exactly.engine.DedupCache;
import dev.exactly.engine.PartitionKey;
import dev.exactly.engine.cache.WarmDedupCache;
import dev.exactly.testing.PostgresResource;
import io.quarkus.arc.ClientProxy;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/** The server shape wires the warm cache and fusion by default, and exposes their meters. */
@QuarkusTest
@QuarkusTestResource(PostgresResource.class)
class EngineWiringTest {

    @Inject
    DedupCache cache;

    @Inject
    FusionConfig fusion;

    @Test
    void theServerShapeRunsTheWarmCacheAndFusionWithTheirMeters() {
        Object target = ClientProxy.unwrap(cache);
        assertTrue(target instanceof WarmDedupCache, "server default: exactly.dedup-cache.enabled=true, got " + target);
        assertTrue(fusion.enabled(), "server default: exactly.fusion.enabled=true");
        assertEquals(1, fusion.pipeline(), "server default: exactly.fusion.pipeline=1");
        WarmDedupCache warm = (WarmDedupCache) target;

        String body = "{\"items\":[{\"queue\":\"wired\",\"transactionId\":\"w-1\",\"payload\":{}}]}";
        String id = api().body(body).post("/api/v1/push").then().statusCode(200)
                .body("results[0].status", equalTo("queued")).extract().path("results[0].messageId");
        api().body(body).post("/api/v1/push").then().statusCode(200)
                .body("results[0].status", equalTo("duplicate")).body("results[0].messageId", equalTo(id));
        assertTrue(warm.resident(new PartitionKey("wired", "Default")), "the push went through the cache");

        // /configure tells the cache: the partition must rebuild fully before it vouches again
        api().body("{\"queue\":\"wired\",\"options\":{\"dedupWindowSeconds\":60}}").post("/api/v1/configure")
                .then().statusCode(200);
        String state = warm.describe(new PartitionKey("wired", "Default"));
        assertTrue(state.contains("needsFull"), state);

        RestAssured.given().get("/q/metrics").then().statusCode(200)
                .body(containsString("exactly_dedup_cache_resident_bytes"))
                .body(containsString("exactly_dedup_cache_bytes_per_hash"))
                .body(containsString("exactly_dedup_cache_suppressed_partitions"))
                .body(containsString("exactly_dedup_cache_hydrations_total{kind=\"full\""))
                .body(containsString("exactly_dedup_probes_total{kind=\"narrowed\""))
                .body(containsString("exactly_push_sql_calls_total"))
                .body(containsString("exactly_push_wal_flushes_total"))
                .body(containsString("exactly_fusion_flushes_total"));
    }
}
