package dev.exactly.db;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.exactly.reliability.RestartablePostgres;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.PoolOptions;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link DurabilitySettings} reads the settings as the service's sessions get them, on a server
 * configured as production runs it ({@link RestartablePostgres}: fsync and synchronous_commit on): a
 * database with the server's settings has no problem; one an operator set to
 * {@code synchronous_commit = off} is reported.
 */
class DurabilitySettingsTest {

    private static final RestartablePostgres PG = RestartablePostgres.shared();
    private static Vertx vertx;

    @BeforeAll
    static void start() {
        vertx = Vertx.vertx();
    }

    @AfterAll
    static void stop() {
        vertx.closeAndAwait();
    }

    private static List<String> problemsOf(String database) {
        PgConnectOptions connect = PgConnectOptions.fromUri(PG.reactiveUrl(database, PG.port())).setUser("postgres");
        Pool pool = Pool.newInstance(PgBuilder.pool().with(new PoolOptions().setMaxSize(1))
                .connectingTo(connect).using(vertx.getDelegate()).build());
        try {
            return new DurabilitySettings(pool).problems().await().atMost(Duration.ofSeconds(30));
        } finally {
            pool.closeAndAwait();
        }
    }

    @Test
    void aDatabaseWithTheServersDurableSettingsHasNoProblem() {
        PG.datasourceOf("durability_defaults");
        assertEquals(List.of(), problemsOf("durability_defaults"));
    }

    @Test
    void aDatabaseWhoseCommitsDoNotWaitForTheirFlushIsReported() throws Exception {
        PG.datasourceOf("durability_async");
        try (Connection c = PG.connect("postgres"); Statement s = c.createStatement()) {
            s.execute("ALTER DATABASE durability_async SET synchronous_commit = off");
        }
        assertEquals(List.of("synchronous_commit is off: a commit does not wait for its WAL flush"),
                problemsOf("durability_async"));
    }
}
