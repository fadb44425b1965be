package dev.exactly.db;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.UntrustedTlsServer;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.pgclient.PgPool;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.PoolOptions;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A database whose certificate the client does not trust (as direct RDS is to a JDK trust store
 * without the RDS CA) is "database away", not a bug: the real Vert.x PostgreSQL client, with
 * sslmode=require as infra/terraform sets it, verifies the certificate against the JDK's trust
 * store, refuses {@link UntrustedTlsServer}'s, and {@link DatabaseErrors#classify} makes the
 * failure a {@link StoreUnavailableException} (503 problem+json with Retry-After).
 */
class DatabaseTlsTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private UntrustedTlsServer server;
    private Vertx vertx;
    private Pool pool;

    @BeforeEach
    void start() throws Exception {
        server = new UntrustedTlsServer();
        vertx = Vertx.vertx();
        PgConnectOptions options = PgConnectOptions.fromUri("postgresql://127.0.0.1:" + server.port() + "/exactly?sslmode=require")
                .setUser("exactly").setPassword("not-used");
        pool = PgPool.pool(vertx, options, new PoolOptions().setMaxSize(1));
    }

    @AfterEach
    void stop() throws Exception {
        pool.closeAndAwait();
        vertx.closeAndAwait();
        server.close();
    }

    @Test
    void anUntrustedCertificateIsTheDatabaseBeingAway() {
        Throwable failure = null;
        try {
            pool.query("SELECT 1").execute().await().atMost(WAIT);
        } catch (RuntimeException t) {
            failure = t;
        }
        assertNotNull(failure, "the handshake fails");
        assertTrue(server.handshakes() > 0, "the client reached the TLS handshake");
        assertTrue(chain(failure).contains("SSL handshake failed"), chain(failure));
        assertInstanceOf(StoreUnavailableException.class, DatabaseErrors.classify(failure), chain(failure));
    }

    private static String chain(Throwable t) {
        StringBuilder b = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            b.append(c.getClass().getName()).append(": ").append(c.getMessage()).append(" <- ");
        }
        return b.toString();
    }
}
