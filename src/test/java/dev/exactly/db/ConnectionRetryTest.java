package dev.exactly.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.message.MessageRepository;
import dev.exactly.queue.QueueOption;
import dev.exactly.queue.QueueRepository;
import dev.exactly.testing.TestDatabase;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.pgclient.PgPool;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.PoolOptions;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The queue and message repositories retry once when their pooled connection was closed under
 * them (as an RDS Proxy does to idle clients of a frozen Lambda instance), against a real
 * PostgreSQL reached through a relay that drops its connections on their next use.
 */
class ConnectionRetryTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private Vertx vertx;
    private DroppingProxy proxy;
    private Pool pool;
    private String database;

    @BeforeEach
    void start() throws Exception {
        database = TestDatabase.createDatabase();
        Flyway.configure().dataSource(TestDatabase.jdbcUrl(database), "postgres", "")
                .locations("classpath:db/migration").schemas("exactly").defaultSchema("exactly").createSchemas(true)
                .load().migrate();
        proxy = new DroppingProxy(TestDatabase.server().getPort());
        vertx = Vertx.vertx();
        pool = PgPool.pool(vertx, new PgConnectOptions().setHost("127.0.0.1").setPort(proxy.port())
                .setDatabase(database).setUser("postgres").setPassword(""), new PoolOptions().setMaxSize(1));
    }

    @AfterEach
    void stop() throws Exception {
        pool.closeAndAwait();
        vertx.closeAndAwait();
        proxy.close();
    }

    @Test
    void withoutTheRetryADroppedConnectionFails() {
        pool.query("SELECT 1").execute().await().atMost(WAIT);
        proxy.dropOnNextUse();
        Throwable t = assertThrows(Throwable.class, () -> pool.query("SELECT 1").execute().await().atMost(WAIT));
        assertTrue(ConnectionRetry.isClosedConnection(t), "a closed connection is recognised: " + t);
    }

    @Test
    void queueReadsAndWritesSurviveADroppedConnection() {
        QueueRepository queues = new QueueRepository(pool);
        assertNull(queues.find("orders").await().atMost(WAIT));
        assertEquals(1, proxy.accepted());

        proxy.dropOnNextUse();
        var change = queues.write("orders", Map.of(QueueOption.DEDUP_WINDOW_SECONDS, 600), true).await().atMost(WAIT);
        assertEquals(600, change.after().options().get(QueueOption.DEDUP_WINDOW_SECONDS));
        assertEquals(2, proxy.accepted(), "the write ran again on a new connection");

        proxy.dropOnNextUse();
        var stored = queues.find("orders").await().atMost(WAIT);
        assertNotNull(stored);
        assertEquals(600, stored.options().get(QueueOption.DEDUP_WINDOW_SECONDS));
        assertEquals(3, proxy.accepted());
    }

    @Test
    void messageReadsSurviveADroppedConnection() {
        MessageRepository messages = new MessageRepository(pool);
        assertNull(messages.find(UUID.randomUUID()).await().atMost(WAIT));
        proxy.dropOnNextUse();
        assertNull(messages.find(UUID.randomUUID()).await().atMost(WAIT));
        assertEquals(2, proxy.accepted());
    }

    @Test
    void otherFailuresAreNotRetried() {
        int[] calls = {0};
        assertThrows(Throwable.class, () -> ConnectionRetry.onceOnClosedConnection(() -> {
            calls[0]++;
            return pool.query("SELECT no_such_column").execute();
        }).await().atMost(WAIT));
        assertEquals(1, calls[0]);
    }
}
