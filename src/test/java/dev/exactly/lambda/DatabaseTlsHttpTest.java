package dev.exactly.lambda;

import static dev.exactly.testing.Api.api;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.UntrustedTlsServer;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The Lambda shape with its database URL as infra/terraform writes it ({@code ?sslmode=require})
 * pointing at a server whose certificate the JDK does not trust ({@link UntrustedTlsServer}): a
 * push answers 503 problem+json with Retry-After, like any other "database away", not 500.
 */
@QuarkusTest
@Tag("lambda")
@TestProfile(DatabaseTlsHttpTest.UntrustedDatabase.class)
class DatabaseTlsHttpTest {

    @Test
    void aRefusedCertificateAnswers503WithRetryAfter() {
        api().body("{\"items\":[{\"queue\":\"tls\",\"transactionId\":\"t-1\",\"payload\":1}]}").post("/api/v1/push").then()
                .statusCode(503)
                .contentType("application/problem+json")
                .header("Retry-After", equalTo("2"));
        assertTrue(UntrustedDatabase.server().handshakes() > 0, "the push reached the TLS handshake");
    }

    /** The lambda config profile with the datasource on the untrusted TLS server. */
    public static class UntrustedDatabase implements QuarkusTestProfile {
        private static UntrustedTlsServer server;

        static synchronized UntrustedTlsServer server() {
            if (server == null) {
                try {
                    server = new UntrustedTlsServer();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
            return server;
        }

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of(
                    "quarkus.datasource.reactive.url", "postgresql://127.0.0.1:" + server().port() + "/exactly?sslmode=require",
                    "quarkus.datasource.username", "exactly",
                    "quarkus.datasource.password", "not-a-secret",
                    "exactly.metrics.queues", "");
        }
    }
}
