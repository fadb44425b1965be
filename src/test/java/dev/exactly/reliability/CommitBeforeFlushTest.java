package dev.exactly.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.consume.ConsumeRepository;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The rules of "Commit before the WAL flush" (sql/R__push.sql), one test each, on a server with
 * synchronous_commit on whose WAL writer is slowed to 10 s and whose autovacuum is off for the
 * class, so that a commit that did not flush stays unflushed while the test looks:
 * <ul>
 *   <li>a write sent on its own (p_release) commits without flushing and asks for a flush;</li>
 *   <li>a write in a caller's transaction (p_release false) flushes at its commit and asks for none;</li>
 *   <li>a duplicate whose original is committed but not flushed asks for a flush; once
 *       exactly.flush_wal() returned, the original is flushed and a duplicate asks for none;</li>
 *   <li>a destination's pop ({@link ConsumeRepository#RELEASE_UNLESS_EARLY}) of messages whose
 *       pushes committed synchronously commits without flushing;</li>
 *   <li>a destination's pop that leased a message committed before its flush flushes at its
 *       commit, which makes that message durable before it is delivered.</li>
 * </ul>
 */
class CommitBeforeFlushTest {

    private static final String DATABASE = "commit_before_flush_rules";
    private static final RestartablePostgres PG = RestartablePostgres.shared();

    @BeforeAll
    static void slowWalWriter() throws SQLException {
        PG.start();
        PG.createMigratedDatabase(DATABASE);
        system("ALTER SYSTEM SET wal_writer_delay = '10s'", "ALTER SYSTEM SET autovacuum = off");
    }

    @AfterAll
    static void restore() throws SQLException {
        system("ALTER SYSTEM RESET wal_writer_delay", "ALTER SYSTEM RESET autovacuum");
    }

    private static void system(String... sql) throws SQLException {
        try (Connection c = PG.connect("postgres"); Statement s = c.createStatement()) {
            for (String q : sql) {
                s.execute(q);
            }
            s.execute("SELECT pg_reload_conf()");
            s.execute("SELECT pg_sleep(0.2)");
        }
    }

    /** One push of one item with {@code key} to partition p of queue q; returns {duplicate, flush_needed}. */
    private static boolean[] push(Connection c, String key, boolean release) throws SQLException {
        return push(c, "q", key, release);
    }

    /** One push of one item with {@code key} to partition p of {@code queue}; returns {duplicate, flush_needed}. */
    private static boolean[] push(Connection c, String queue, String key, boolean release) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SELECT exactly.ensure_partitions(ARRAY['" + queue + "'], ARRAY['p'])");
            String sql = "SELECT duplicate, exactly.flush_needed() FROM exactly.push_segment("
                    + "exactly.partition_id('" + queue + "', 'p'), -1, NULL, ARRAY[decode(md5('" + key + "'), 'hex')], ARRAY[true], "
                    + "ARRAY['" + UUID.randomUUID() + "'::uuid], ARRAY['" + key + "'], ARRAY['{}'::bytea], "
                    + "ARRAY[NULL::text], ARRAY[NULL::text], ARRAY[NULL::text], p_release => " + release + ")";
            try (ResultSet rs = s.executeQuery(sql)) {
                rs.next();
                return new boolean[] {rs.getBoolean(1), rs.getBoolean(2)};
            }
        }
    }

    /** pg_current_wal_insert_lsn() - pg_current_wal_flush_lsn(), in bytes: WAL written but not flushed. */
    private static long unflushed(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), pg_current_wal_flush_lsn())")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * A destination's pop of {@code queue} as ConsumeRepository.popStored makes it, for destination
     * "d" (its figures row made first: a pop under a destination's group starts no cursor once the
     * destination is gone); returns the offsets leased.
     */
    private static List<Long> destinationPop(Connection c, String queue) throws SQLException {
        List<Long> offsets = new ArrayList<>();
        try (Statement s = c.createStatement()) {
            s.execute("INSERT INTO exactly.destination_state (name, queue) VALUES ('d', '" + queue + "') ON CONFLICT (name) DO NOTHING");
        }
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT \"offset\"" + ConsumeRepository.RELEASE_UNLESS_EARLY
                     + " FROM exactly.pop_many(p_queue => '" + queue + "', p_partition => NULL, p_group => 'destination:d', "
                     + "p_batch => 10, p_lease_seconds => 30, p_no_retry_limit => true)")) {
            while (rs.next()) {
                offsets.add(rs.getLong(1));
            }
        }
        return offsets;
    }

    private static void flushWal(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SELECT exactly.flush_wal()");
        }
    }

    @Test
    void aWriteSentOnItsOwnCommitsBeforeItsFlushAndAsksForOne() throws SQLException {
        try (Connection c = PG.connect(DATABASE)) {
            flushWal(c);
            boolean[] r = push(c, "own-" + UUID.randomUUID(), true);
            assertFalse(r[0], "a new key");
            assertTrue(r[1], "the answer asks for a flush");
            assertTrue(unflushed(c) > 0, "its commit did not wait for the flush");
            flushWal(c);
            assertTrue(unflushed(c) == 0, "exactly.flush_wal() flushed everything written before it");
        }
    }

    @Test
    void aWriteInACallersTransactionFlushesAtItsCommitAndAsksForNone() throws SQLException {
        try (Connection c = PG.connect(DATABASE)) {
            flushWal(c);
            c.setAutoCommit(false);
            boolean[] r = push(c, "within-" + UUID.randomUUID(), false);
            c.commit();
            c.setAutoCommit(true);
            assertFalse(r[0], "a new key");
            assertFalse(r[1], "the caller's commit flushes: no flush asked");
            assertTrue(unflushed(c) == 0, "its commit waited for the flush");
        }
    }

    @Test
    void aDuplicateOfAnOriginalNotYetFlushedAsksForAFlushAndNoneOnceItIs() throws SQLException {
        String key = "dup-" + UUID.randomUUID();
        try (Connection writer = PG.connect(DATABASE); Connection reader = PG.connect(DATABASE)) {
            flushWal(writer);
            assertFalse(push(writer, key, true)[0], "the original");
            boolean[] r = push(reader, key, true);
            assertTrue(r[0], "a duplicate");
            assertTrue(r[1], "its original is committed but not flushed: the answer asks for a flush");
            flushWal(reader);
            // a read may itself write WAL (pruning a page of the partition's row versions), so a
            // duplicate answered after the flush may find WAL of its own unflushed: of three in a row
            // (nothing else writes), one at least must ask for none
            List<Boolean> asked = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                r = push(reader, key, true);
                assertTrue(r[0], "a duplicate");
                asked.add(r[1]);
            }
            assertTrue(asked.contains(false), "the original is flushed; asked: " + asked);
        }
    }

    @Test
    void aDestinationsPopOfSynchronouslyCommittedMessagesCommitsWithoutAFlush() throws SQLException {
        String queue = "pop-sync-" + UUID.randomUUID();
        try (Connection c = PG.connect(DATABASE)) {
            for (int i = 0; i < 3; i++) {
                assertFalse(push(c, queue, "k" + i, false)[0], "a new key");
            }
            assertTrue(unflushed(c) == 0, "the pushes' commits flushed");
            assertEquals(List.of(0L, 1L, 2L), destinationPop(c, queue));
            assertTrue(unflushed(c) > 0, "the pop leased only durable messages: its commit did not wait for the flush");
        }
    }

    @Test
    void aDestinationsPopOfAMessageCommittedBeforeItsFlushFlushesAtItsCommit() throws SQLException {
        String queue = "pop-early-" + UUID.randomUUID();
        try (Connection c = PG.connect(DATABASE)) {
            assertFalse(push(c, queue, "s", false)[0], "a new key, committed synchronously");
            assertFalse(push(c, queue, "e", true)[0], "a new key, committed before its flush");
            assertTrue(unflushed(c) > 0, "the second push is not flushed yet");
            assertEquals(List.of(0L, 1L), destinationPop(c, queue));
            assertTrue(unflushed(c) == 0, "the pop leased a message that may not be durable: its commit flushed it");
        }
    }
}
