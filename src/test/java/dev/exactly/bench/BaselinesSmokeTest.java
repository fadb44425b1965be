package dev.exactly.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * CI smoke run of the SQL-level driver and the bench-only baselines (bench/sql/baselines.sql):
 * the suite's database preparation and window pre-fill run on the tests' embedded PostgreSQL,
 * then each design takes 40 calls. Asserts that each ran and gave the verdicts its design
 * promises; no timing assertion.
 */
class BaselinesSmokeTest {

    private static BenchDatabase db;
    private static Vertx vertx;

    @BeforeAll
    static void prepare() throws Exception {
        db = BenchDatabase.external(TestDatabase.jdbcUrl("postgres"));
        db.prepare(Path.of("").toAbsolutePath());
        vertx = Vertx.vertx();
    }

    @AfterAll
    static void stop() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        db.close();
    }

    private static LoadResult drive(String design, Workload w) throws Exception {
        Pool pool = db.pool(vertx, 4);
        try {
            return SqlLoad.run(pool, Suite.DESIGNS.get(design), w, new SqlLoad.Options(4, Duration.ZERO, Duration.ofSeconds(60), 40));
        } finally {
            pool.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void everyDesignRunsAndDeduplicatesAsItPromises() throws Exception {
        for (Map.Entry<String, String> e : Suite.DESIGNS.entrySet()) {
            String design = e.getKey();
            // plain stores every item it is sent, so it gets no repeated ids (layer 1 would settle
            // repeats inside one request before any design sees them)
            double dups = design.equals("plain") ? 0 : 0.3;
            LoadResult r = drive(design, Workload.of("smoke-" + design, 20, 5, dups));
            assertNull(r.firstError(), design + ": " + r.firstError());
            assertEquals(40, r.requests(), design + ": " + r);
            assertEquals(20 * r.requests(), r.items(), design);
            if (design.equals("plain")) {
                assertEquals(0, r.duplicates(), "plain: " + r);
                assertEquals(r.items(), Long.parseLong(db.text("SELECT count(*) FROM bench.plain_messages")), "plain stores every item");
            } else {
                assertTrue(r.duplicates() > 0, design + " found no duplicate among repeated ids: " + r);
            }
        }
    }

    @Test
    void prefilledWindowsHoldWhatTheySay() throws Exception {
        db.prefill("smoke-occ", "p0", 1_000, "exactly");
        db.prefill("smoke-occ-scan", "p0", 1_000, "scan");
        assertEquals("1000", db.text("SELECT count(*) FROM exactly.txn_hashes t JOIN exactly.partitions p ON p.id = t.partition_id "
                + "JOIN exactly.queues q ON q.id = p.queue_id WHERE q.name = 'smoke-occ' AND t.created_at > now() - interval '1 hour'"));
        assertEquals("1000", db.text("SELECT sum(length(hashes) / 16) FROM bench.ref_txns t JOIN exactly.partitions p "
                + "ON p.id = t.partition_id JOIN exactly.queues q ON q.id = p.queue_id WHERE q.name = 'smoke-occ-scan'"));
        assertEquals("999", db.text("SELECT last_offset FROM exactly.partitions p JOIN exactly.queues q ON q.id = p.queue_id "
                + "WHERE q.name = 'smoke-occ'"));
        // pushes after the pre-fill are new, and allocate after it
        LoadResult r = drive("exactly", Workload.of("smoke-occ", 10, 1, 0));
        assertNull(r.firstError());
        assertEquals(0, r.duplicates());
        assertEquals("1000", db.text("SELECT min(m.\"offset\") FROM exactly.messages m JOIN exactly.partitions p ON p.id = m.partition_id "
                + "JOIN exactly.queues q ON q.id = p.queue_id WHERE q.name = 'smoke-occ' AND m.transaction_id NOT LIKE 'pre-%'"));
    }
}
