package dev.exactly.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.exactly.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The bench's reading of the database server's CPU (floor phase: database CPU per push) against the tests'
 * embedded PostgreSQL: it finds the postmaster, and its sum grows by at least what a CPU-heavy
 * backend used, while the backend lives and after it has exited and been reaped. Relations
 * between readings only; no timed bound.
 */
class PostgresCpuTest {

    private static final String BURN = "SELECT count(*) FROM generate_series(1, 5e6)";

    @BeforeAll
    static void linux() {
        assumeTrue(Files.isReadable(Path.of("/proc/self/stat")), "needs Linux /proc");
    }

    private static Connection connect() throws SQLException {
        return DriverManager.getConnection(TestDatabase.jdbcUrl("postgres"), "postgres", "");
    }

    private static long backendPid(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static void burn(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(BURN)) {
            rs.next();
            assertEquals(5_000_000, rs.getLong(1));
        }
    }

    /** utime + stime of one process, in clock ticks. */
    private static long ticks(long pid) {
        long[] f = PostgresCpu.fields(pid);
        assertNotNull(f, "process " + pid + " is gone");
        return f[0] + f[1];
    }

    @Test
    void findsThePostmasterAndCountsALiveBackend() throws Exception {
        try (Connection c = connect()) {
            PostgresCpu cpu = PostgresCpu.of(c);
            long backend = backendPid(c);
            assertTrue(ProcessHandle.of(cpu.postmasterPid()).orElseThrow().descendants().anyMatch(h -> h.pid() == backend),
                    "the connection's backend " + backend + " is not a descendant of " + cpu.postmasterPid());
            PostgresCpu.Reading before = cpu.read();
            long backendBefore = ticks(backend);
            burn(c);
            long backendUsed = ticks(backend) - backendBefore;
            PostgresCpu.Reading after = cpu.read();

            assertTrue(backendUsed > 0, "the heavy query used no CPU ticks of its backend");
            assertTrue(after.since(before) >= backendUsed * cpu.secondsPerTick() - 1e-9,
                    "the server's CPU grew by " + after.since(before) + " s, less than its busy backend's "
                            + backendUsed + " ticks");
        }
    }

    @Test
    void aBackendThatExitedStillCounts() throws Exception {
        try (Connection watcher = connect()) {
            PostgresCpu cpu = PostgresCpu.of(watcher);
            PostgresCpu.Reading before = cpu.read();
            long pid;
            long used;
            try (Connection c = connect()) {
                pid = backendPid(c);
                burn(c);
                used = ticks(pid);
            }
            for (int i = 0; i < 300 && PostgresCpu.fields(pid) != null; i++) {
                Thread.sleep(100); // the backend exits and the postmaster reaps it
            }
            assertNull(PostgresCpu.fields(pid), "backend " + pid + " was not reaped within 30 s");
            PostgresCpu.Reading after = cpu.read();

            assertTrue(used > 0, "the heavy query used no CPU ticks");
            assertTrue(after.reapedSeconds() - before.reapedSeconds() >= used * cpu.secondsPerTick() - 1e-9,
                    "reaped CPU grew by " + (after.reapedSeconds() - before.reapedSeconds()) + " s, less than the exited "
                            + "backend's " + used + " ticks");
            assertTrue(after.since(before) > 0);
        }
    }
}
