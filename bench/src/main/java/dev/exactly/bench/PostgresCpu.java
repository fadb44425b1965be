package dev.exactly.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * CPU time of a PostgreSQL server's processes on this machine, from Linux /proc (proc_pid_stat(5):
 * fields 14-17, utime, stime, cutime, cstime, in clock ticks): the postmaster's and every live
 * descendant's utime + stime (backends, walwriter, checkpointer, autovacuum, ...), plus the
 * postmaster's cutime + cstime, which holds the CPU of the children it has reaped (a client's
 * backends once it has disconnected). Read it before and after an interval; the difference is the
 * server's CPU in that interval, provided the interval ends after the exited backends were reaped
 * (the postmaster reaps within milliseconds; wait a second to be safe).
 *
 * <p>The postmaster is found from the first line of {@code <data_directory>/postmaster.pid} (SHOW
 * data_directory; superuser or pg_read_all_settings) or, when that file cannot be read (another
 * user's server), as the parent of the connection's own backend (pg_backend_pid()).
 */
final class PostgresCpu {

    /** One reading, in CPU seconds: live processes, and reaped children. */
    record Reading(double liveSeconds, double reapedSeconds) {
        /** All of it. */
        double total() {
            return liveSeconds + reapedSeconds;
        }

        /** CPU seconds from {@code before} to this reading. */
        double since(Reading before) {
            return total() - before.total();
        }
    }

    private final long postmaster;
    private final double secondsPerTick;

    private PostgresCpu(long postmaster, double secondsPerTick) {
        this.postmaster = postmaster;
        this.secondsPerTick = secondsPerTick;
    }

    /**
     * The CPU reader of the server a connection is on.
     *
     * @throws IllegalStateException when the server's processes are not visible in this machine's /proc
     *                               (a remote server, or not Linux)
     */
    static PostgresCpu of(Connection c) throws SQLException {
        long pid = fromPidFile(c);
        if (pid <= 0) {
            pid = parentOfBackend(c);
        }
        if (pid <= 0 || !Files.isReadable(stat(pid))) {
            throw new IllegalStateException("PostgreSQL's processes are not visible in this machine's /proc "
                    + "(a remote server, or not Linux)");
        }
        return new PostgresCpu(pid, 1.0 / clockTicksPerSecond());
    }

    /** The postmaster's process id. */
    long postmasterPid() {
        return postmaster;
    }

    /** Seconds per clock tick (1 / USER_HZ). */
    double secondsPerTick() {
        return secondsPerTick;
    }

    /**
     * Reads the CPU time so far.
     *
     * @throws IllegalStateException when the postmaster is gone
     */
    Reading read() {
        long[] pm = fields(postmaster);
        if (pm == null) {
            throw new IllegalStateException("the postmaster (pid " + postmaster + ") is gone");
        }
        long reaped = pm[2] + pm[3];
        long live = pm[0] + pm[1];
        List<ProcessHandle> children = ProcessHandle.of(postmaster).map(h -> h.descendants().toList()).orElse(List.of());
        for (ProcessHandle h : children) {
            long[] f = fields(h.pid());
            if (f != null) { // null: exited meanwhile (its CPU moves to the postmaster's cutime when reaped)
                live += f[0] + f[1];
            }
        }
        return new Reading(live * secondsPerTick, reaped * secondsPerTick);
    }

    /** {utime, stime, cutime, cstime} of a process, or null when it is gone. */
    static long[] fields(long pid) {
        String s;
        try {
            s = Files.readString(stat(pid));
        } catch (IOException gone) {
            return null;
        }
        // the command name (field 2) is in parentheses and may itself hold spaces or parentheses
        String[] f = s.substring(s.lastIndexOf(')') + 2).trim().split(" ");
        // f[0] is field 3 (state): field n is f[n - 3]
        return new long[] {Long.parseLong(f[11]), Long.parseLong(f[12]), Long.parseLong(f[13]), Long.parseLong(f[14])};
    }

    private static Path stat(long pid) {
        return Path.of("/proc", Long.toString(pid), "stat");
    }

    private static long fromPidFile(Connection c) {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW data_directory")) {
            if (!rs.next()) {
                return -1;
            }
            String first = Files.readAllLines(Path.of(rs.getString(1), "postmaster.pid")).get(0).trim();
            return Long.parseLong(first);
        } catch (SQLException | IOException | RuntimeException unreadable) {
            return -1;
        }
    }

    private static long parentOfBackend(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            try {
                String st = Files.readString(stat(rs.getLong(1)));
                return Long.parseLong(st.substring(st.lastIndexOf(')') + 2).trim().split(" ")[1]); // field 4, ppid
            } catch (IOException notHere) {
                return -1;
            }
        }
    }

    /** The kernel's USER_HZ (getconf CLK_TCK), 100 when it cannot be asked. */
    private static long clockTicksPerSecond() {
        try {
            Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).trim();
            p.waitFor();
            return Long.parseLong(out);
        } catch (IOException | NumberFormatException e) {
            return 100;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 100;
        }
    }
}
