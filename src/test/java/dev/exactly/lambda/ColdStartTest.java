package dev.exactly.lambda;

import static dev.exactly.testing.Api.anonymous;
import static dev.exactly.testing.Api.api;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.push.HotPathPriming;
import io.quarkus.arc.Arc;
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
     * The Lambda build leaves out what its start would build for nothing, since each would lengthen
     * the cold start: no Agroal JDBC pool, no Narayana transaction manager (quarkus-agroal's), no
     * quarkus-flyway (the migrate call makes a plain Flyway), no scheduler (its timers are the
     * server's; maintenance comes from EventBridge) and no OpenAPI extension (/q/openapi is not
     * served). None of their classes is there to load; FunctionZipIT checks function.zip itself.
     */
    @Test
    void theLambdaBuildHasNoJdbcPoolTransactionManagerFlywayExtensionSchedulerNorOpenApi() {
        for (String absent : new String[] {
                "io.agroal.api.AgroalDataSource", "io.quarkus.agroal.runtime.DataSources",
                "com.arjuna.ats.jta.TransactionManager", "io.quarkus.narayana.jta.runtime.NarayanaJtaRecorder",
                "io.quarkus.flyway.runtime.FlywayContainerProducer",
                "io.quarkus.scheduler.Scheduler", "com.cronutils.model.Cron",
                "io.smallrye.openapi.api.SmallRyeOpenAPI"}) {
            assertThrows(ClassNotFoundException.class,
                    () -> Class.forName(absent, false, Thread.currentThread().getContextClassLoader()), absent);
        }
        anonymous().get("/q/openapi").then().statusCode(404);
    }

    /**
     * What runs before a SnapStart checkpoint (the push path in memory, HotPathPriming) connects to
     * nothing, so the snapshot holds no socket and the database sees no write, and it does the
     * push's work: each round encodes push_bundle's arguments (hashes, ids, payload bytes) and
     * writes the answers.
     */
    @Test
    void primingThePushPathConnectsNothing() {
        HotPathPriming priming = Arc.container().instance(HotPathPriming.class).get();
        int before = Listener.attempts.get();
        long bytes = priming.prime(true, "test");
        assertEquals(before, Listener.attempts.get(), "connections opened while priming");
        long oneRound = priming.round();
        assertTrue(oneRound > 0, "a round encodes the push's arguments and answers");
        assertTrue(priming.rounds() > 0, "rounds configured");
        assertEquals(priming.rounds() * oneRound, bytes, "every round did the same work");
    }

    /** The lambda config profile with the datasource on the counting listener. */
    public static class CountingDatabase implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of(
                    "quarkus.datasource.reactive.url", "postgresql://127.0.0.1:" + Listener.port() + "/exactly",
                    "quarkus.datasource.username", "exactly",
                    "quarkus.datasource.password", "not-a-secret");
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
