package dev.exactly.engine.cache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.engine.PartitionKey;
import dev.exactly.engine.PushCommand;
import dev.exactly.engine.PushRepository;
import dev.exactly.engine.RequestGrouping;
import dev.exactly.engine.TransactionHash;
import dev.exactly.testing.EnginePools;
import io.vertx.mutiny.sqlclient.Pool;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The hydration reads against a real PostgreSQL (the embedded one). */
class TxnHashRepositoryTest {

    private static EnginePools db;
    private static Pool pool;
    private static PushRepository store;
    private static TxnHashRepository reader;

    @BeforeAll
    static void setUp() {
        db = EnginePools.migrated();
        pool = db.pool(4);
        store = new PushRepository(pool);
        reader = new TxnHashRepository(pool);
    }

    @AfterAll
    static void tearDown() {
        db.close();
    }

    private static void push(PartitionKey k, String... txns) {
        List<PushCommand> cmds = new ArrayList<>();
        for (String t : txns) {
            cmds.add(PushCommand.json(k.queue(), k.partition(), t, "{}".getBytes(StandardCharsets.UTF_8), null));
        }
        store.push(RequestGrouping.of(cmds).segments()).await().indefinitely();
    }

    private static void sql(String statement) {
        pool.query(statement).execute().await().indefinitely();
    }

    private static long pid(PartitionKey k) {
        return pool.query("SELECT p.id FROM exactly.partitions p JOIN exactly.queues q ON q.id = p.queue_id WHERE q.name = '"
                + k.queue() + "' AND p.name = '" + k.partition() + "'").execute().await().indefinitely()
                .iterator().next().getLong(0);
    }

    /** Collects rows: offset, hi, lo, age. */
    private static final class Rows implements HydrationSource.RowSink {
        final List<long[]> rows = new ArrayList<>();
        int stopAfter = Integer.MAX_VALUE;

        @Override
        public boolean accept(long offset, long hi, long lo, long ageMillis) {
            rows.add(new long[] {offset, hi, lo, ageMillis});
            return rows.size() < stopAfter;
        }

        long[] offsets() {
            return rows.stream().mapToLong(r -> r[0]).toArray();
        }
    }

    private static void assertHash(long[] row, String txn) {
        byte[] h = TransactionHash.of(txn);
        assertEquals(ResidentHashes.high(h), row[1], txn);
        assertEquals(ResidentHashes.low(h), row[2], txn);
    }

    @Test
    void aFullHydrationReadsTheWindowsRowsAtOrBelowTheWatermarkInOffsetOrder() {
        PartitionKey k = new PartitionKey("full", "p");
        push(k, "a", "b", "c", "d", "e");
        long pid = pid(k);
        sql("UPDATE exactly.txn_hashes SET created_at = created_at - interval '2 hours' WHERE partition_id = " + pid
                + " AND \"offset\" < 2");
        Rows rows = new Rows();
        HydrationSource.Snapshot s = reader.fullWindow(k, 5, rows).await().indefinitely();
        assertEquals(new HydrationSource.Snapshot(3600, pid, 4, true), s);
        assertArrayEquals(new long[] {2, 3, 4}, rows.offsets(), "rows older than window + slack are not read");
        assertHash(rows.rows.get(0), "c");
        assertHash(rows.rows.get(2), "e");
        for (long[] r : rows.rows) {
            assertTrue(r[3] >= 0 && r[3] < 600_000, "age in milliseconds: " + r[3]);
        }
    }

    @Test
    void theSlackWidensTheReadOnTheSafeSide() {
        PartitionKey k = new PartitionKey("slack", "p");
        push(k, "a", "b");
        sql("UPDATE exactly.txn_hashes SET created_at = created_at - interval '3602 seconds' WHERE partition_id = "
                + pid(k) + " AND \"offset\" = 0");
        Rows with = new Rows();
        reader.fullWindow(k, 5, with).await().indefinitely();
        assertArrayEquals(new long[] {0, 1}, with.offsets());
        Rows without = new Rows();
        reader.fullWindow(k, 0, without).await().indefinitely();
        assertArrayEquals(new long[] {1}, without.offsets());
        assertTrue(with.rows.get(0)[3] >= 3_602_000, "the age includes the shift: " + with.rows.get(0)[3]);
    }

    @Test
    void aMissingQueueOrPartitionIsAnEmptyCompleteSnapshot() {
        Rows rows = new Rows();
        assertEquals(new HydrationSource.Snapshot(-1, -1, -1, true),
                reader.fullWindow(new PartitionKey("nope", "p"), 5, rows).await().indefinitely());
        push(new PartitionKey("half", "p"), "a");
        assertEquals(new HydrationSource.Snapshot(3600, -1, -1, true),
                reader.fullWindow(new PartitionKey("half", "other"), 5, rows).await().indefinitely());
        assertTrue(rows.rows.isEmpty());
    }

    @Test
    void manyRowsStreamThroughTheCursorAndTheSinkCanStopIt() {
        PartitionKey k = new PartitionKey("many", "p");
        int n = 3 * TxnHashRepository.FETCH + 17;
        String[] ids = new String[n];
        for (int i = 0; i < n; i++) {
            ids[i] = "m" + i;
        }
        for (int from = 0; from < n; from += 1000) {
            push(k, java.util.Arrays.copyOfRange(ids, from, Math.min(n, from + 1000)));
        }
        Rows all = new Rows();
        HydrationSource.Snapshot s = reader.fullWindow(k, 5, all).await().indefinitely();
        assertTrue(s.complete());
        assertEquals(n, all.rows.size());
        for (int i = 0; i < n; i++) {
            assertEquals(i, all.rows.get(i)[0]);
        }
        assertHash(all.rows.get(n - 1), ids[n - 1]);
        Rows some = new Rows();
        some.stopAfter = 5000;
        assertFalse(reader.fullWindow(k, 5, some).await().indefinitely().complete());
        assertEquals(5000, some.rows.size());
    }

    @Test
    void aDeltaReadReturnsTheGapRecomputingHashesFromTheStoredIds() {
        PartitionKey k = new PartitionKey("delta", "p");
        push(k, "a", "b", "c");
        push(k, "d", "e", "f", "g");
        Rows rows = new Rows();
        HydrationSource.Snapshot s = reader.delta(k, 2, 3600, 1000, rows).await().indefinitely();
        assertEquals(new HydrationSource.Snapshot(3600, pid(k), 6, true), s);
        assertArrayEquals(new long[] {3, 4, 5, 6}, rows.offsets());
        assertHash(rows.rows.get(0), "d");
        assertHash(rows.rows.get(3), "g");
        Rows none = new Rows();
        assertTrue(reader.delta(k, 6, 3600, 1000, none).await().indefinitely().complete(), "no gap: nothing to read");
        assertTrue(none.rows.isEmpty());
    }

    @Test
    void aDeltaReadThatCannotProveCompletenessSaysSo() {
        PartitionKey k = new PartitionKey("holes", "p");
        push(k, "a", "b", "c", "d", "e", "f");
        long pid = pid(k);
        assertFalse(reader.delta(k, 1, 7200, 1000, new Rows()).await().indefinitely().complete(), "window changed");
        assertFalse(reader.delta(k, 1, 3600, 3, new Rows()).await().indefinitely().complete(), "gap too large");
        assertFalse(reader.delta(k, 7, 3600, 1000, new Rows()).await().indefinitely().complete(),
                "watermark above the allocator");
        sql("DELETE FROM exactly.messages WHERE partition_id = " + pid + " AND \"offset\" = 4");
        assertFalse(reader.delta(k, 1, 3600, 1000, new Rows()).await().indefinitely().complete(), "a missing row");
        assertTrue(reader.delta(k, 4, 3600, 1000, new Rows()).await().indefinitely().complete(), "above the hole");
        sql("UPDATE exactly.partitions SET data_start = 4 WHERE id = " + pid);
        assertFalse(reader.delta(k, 2, 3600, 1000, new Rows()).await().indefinitely().complete(), "data purged");
        assertFalse(reader.delta(new PartitionKey("holes", "none"), 0, 3600, 1000, new Rows()).await().indefinitely()
                .complete(), "no such partition");
    }
}
