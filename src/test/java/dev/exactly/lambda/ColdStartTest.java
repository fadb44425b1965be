package dev.exactly.lambda;

import static dev.exactly.testing.Api.anonymous;
import static dev.exactly.testing.Api.api;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The Lambda shape connects to nothing while it starts (so a SnapStart snapshot holds no socket):
 * the datasource points at a loopback listener that counts connection attempts and refuses to
 * speak PostgreSQL. After start-up the count is still zero; the first push then tries it and
 * answers 503 problem+json with Retry-After, which shows the count would have seen a connection.
 */
@QuarkusTest
@Tag("lambda")
@TestProfile(ColdStartTest.CountingDatabase.class)
class ColdStartTest {

    @ConfigProperty(name = "exactly.schema.migrate-at-start")
    boolean migrateAtStart;

    @Test
    void startingConnectsNothingAndTheFirstRequestDoes() {
        assertFalse(migrateAtStart, "the lambda config profile is active");
        assertEquals(0, Listener.attempts.get(), "connections opened during start-up");
        anonymous().get("/q/health/live").then().statusCode(200);
        assertEquals(0, Listener.attempts.get());

        api().body("{\"items\":[{\"queue\":\"cold\",\"transactionId\":\"c-1\",\"payload\":1}]}").post("/api/v1/push").then()
                .statusCode(503)
                .contentType("application/problem+json")
                .header("Retry-After", equalTo("2"));
        assertTrue(Listener.attempts.get() > 0, "the push tried the database");
    }

    /**
     * Start-up builds no JDBC pool and no Flyway (the Lambda profile sets no JDBC URL, which leaves
     * the Agroal datasource and quarkus-flyway's beans inactive; the migrate call makes its own
     * Flyway), and the Lambda build has no OpenAPI extension: /q/openapi is not served.
     */
    @Test
    void startUpBuildsNoJdbcDatasourceNorFlywayAndServesNoOpenApi() {
        assertFalse(active(io.agroal.api.AgroalDataSource.class), "the JDBC datasource bean is active");
        assertFalse(active(org.flywaydb.core.Flyway.class), "quarkus-flyway's Flyway bean is active");
        anonymous().get("/q/openapi").then().statusCode(404);
    }

    private static boolean active(Class<?> type) {
        io.quarkus.arc.InjectableInstance<?> instance = io.quarkus.arc.Arc.container().select(type);
        assertTrue(instance.isResolvable(), type + " has a bean");
        return instance.getHandle().getBean().isActive();
    }

    /** The lambda config profile with the datasource on the counting listener. */
    public static class CountingDatabase implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of(
                    "quarkus.datasource.reactive.url", "postgresql://127.0.0.1:" + Listener.port() + "/exactly",
                    "quarkus.datasource.username", "exactly",
                    "quarkus.datasource.password", "not-a-secret",
                    // the test profile names a queue for the queue gauges, whose scheduled refresh
                    // reads the database at start; the Lambda shape names none
                    "exactly.metrics.queues", "");
        }
    }

    /** A loopback listener that counts and closes every connection it accepts; one per test JVM. */
    static final class Listener {
        static final AtomicInteger attempts = new AtomicInteger();
        private static ServerSocket server;

        private Listener() {
        }

        static synchronized int port() {
            if (server == null) {
                try {
                    server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
                Thread t = new Thread(() -> {
                    while (!server.isClosed()) {
                        try (Socket s = server.accept()) {
                            attempts.incrementAndGet();
                        } catch (IOException e) {
                            return;
                        }
                    }
                }, "counting-listener");
                t.setDaemon(true);
                t.start();
            }
            return server.getLocalPort();
        }
    }
}
