package dev.exactly.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.Api;
import dev.exactly.testing.RawHttp;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The server shape's metrics put behind the key the way docs/security.md tells an operator to
 * (two settings of the metrics permission, as environment variables would give them): without a
 * key 401, with it the Prometheus text; health stays open.
 */
@QuarkusTest
@TestProfile(MetricsBehindTheKeyTest.KeyedMetrics.class)
class MetricsBehindTheKeyTest {

    /** QUARKUS_HTTP_AUTH_PERMISSION_METRICS_POLICY=authenticated, QUARKUS_HTTP_AUTH_PERMISSION_METRICS_AUTH_MECHANISM=bearer. */
    public static class KeyedMetrics implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.http.auth.permission.metrics.policy", "authenticated",
                    "quarkus.http.auth.permission.metrics.auth-mechanism", "bearer");
        }
    }

    @Test
    void metricsNeedTheKeyHealthDoesNot() throws Exception {
        int port = RouteSpellingsTest.port();
        RawHttp.Answer anonymous = RawHttp.send(port, "GET", "/q/metrics", Map.of(), null);
        assertTrue(RouteSpellingsTest.isUnauthorized(anonymous), anonymous.status() + " " + anonymous.body());
        RawHttp.Answer keyed = RawHttp.send(port, "GET", "/q/metrics", Map.of("Authorization", "Bearer " + Api.TEST_API_KEY), null);
        assertEquals(200, keyed.status());
        assertTrue(keyed.body().contains("exactly_webhook_deliveries_received_total"), keyed.body());
        assertEquals(200, RawHttp.send(port, "GET", "/q/health/live", Map.of(), null).status());
    }
}
