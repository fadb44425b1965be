package dev.exactly.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One embedded data directory, one owner: a second service instance started on the same directory
 * must refuse to start, naming the first, and leave the first instance's PostgreSQL running; a
 * PostgreSQL whose service is gone (killed with SIGKILL) is still stopped by the next start. Each
 * instance is a JVM of its own ({@link EmbeddedDatabaseProcess}), as two {@code java -jar} runs in
 * one folder would be.
 */
class EmbeddedDatabaseOwnershipTest {

    private final List<Process> started = new ArrayList<>();
    private final List<Long> postmasters = new ArrayList<>();
    private final Path dir = Path.of("target", "ownership-" + UUID.randomUUID(), "pgdata").toAbsolutePath();

    @Test
    void aSecondInstanceIsRefusedAndTheFirstKeepsAnswering() throws Exception {
        Process first = spawn();
        String[] ready = awaitLine(first, "READY ");
        long firstPostmaster = Long.parseLong(ready[2]);
        postmasters.add(firstPostmaster);

        Process second = spawn();
        String refusal = String.join(" ", awaitLine(second, "REFUSED "));
        assertTrue(second.waitFor(60, TimeUnit.SECONDS), "the second instance exits");
        assertEquals(3, second.exitValue());
        assertTrue(refusal.contains("Another Exactly instance (PID " + first.pid()), refusal);
        assertTrue(refusal.contains(dir.toString()), refusal);

        assertTrue(ProcessHandle.of(firstPostmaster).map(ProcessHandle::isAlive).orElse(false),
                "the first instance's PostgreSQL still runs");
        assertEquals(firstPostmaster, Long.parseLong(Files.readAllLines(dir.resolve("postmaster.pid")).get(0).trim()));
        assertEquals(1, selectOne(ready[1]), "the first instance's PostgreSQL still answers");
        assertTrue(first.isAlive());
    }

    @Test
    void aPostgresWhoseServiceWasKilledIsStoppedByTheNextStart() throws Exception {
        Process killed = spawn();
        long orphan = Long.parseLong(awaitLine(killed, "READY ")[2]);
        postmasters.add(orphan);
        killed.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        assertTrue(ProcessHandle.of(orphan).map(ProcessHandle::isAlive).orElse(false),
                "the PostgreSQL outlives its killed service");

        Process next = spawn();
        String[] ready = awaitLine(next, "READY ");
        postmasters.add(Long.parseLong(ready[2]));
        assertFalse(ProcessHandle.of(orphan).map(ProcessHandle::isAlive).orElse(false), "the left-over was stopped");
        assertEquals(1, selectOne(ready[1]));
    }

    private Process spawn() throws IOException {
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), EmbeddedDatabaseProcess.class.getName(), dir.toString())
                .redirectErrorStream(true).start();
        started.add(p);
        return p;
    }

    /** Reads the process's output until a line starts with {@code prefix}; returns its words. */
    private static String[] awaitLine(Process p, String prefix) throws IOException {
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder seen = new StringBuilder();
        for (String line = r.readLine(); line != null; line = r.readLine()) {
            if (line.startsWith(prefix)) {
                // keep draining its output, so that it never blocks on a full pipe
                Thread drain = new Thread(() -> {
                    try {
                        r.transferTo(java.io.Writer.nullWriter());
                    } catch (IOException ignored) {
                        // the process ended
                    }
                });
                drain.setDaemon(true);
                drain.start();
                return line.split(" ");
            }
            seen.append(line).append('\n');
        }
        throw new AssertionError("no '" + prefix + "' line; the output was:\n" + seen);
    }

    private static int selectOne(String url) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:" + url, "postgres", "");
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 1")) {
            assertTrue(rs.next());
            return rs.getInt(1);
        }
    }

    @AfterEach
    void stopEverything() throws Exception {
        for (Process p : started) {
            if (p.isAlive()) {
                p.getOutputStream().close(); // the instance stops its database and exits
                if (!p.waitFor(60, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            }
        }
        for (long pid : postmasters) { // only the PostgreSQLs these instances started
            ProcessHandle.of(pid).filter(ProcessHandle::isAlive).ifPresent(h -> {
                try {
                    new ProcessBuilder("kill", "-QUIT", Long.toString(pid)).start().waitFor();
                    h.onExit().get(30, TimeUnit.SECONDS);
                } catch (Exception ignored) {
                    // best effort
                }
            });
        }
        Path root = dir.getParent();
        assertNotNull(root);
        try (Stream<Path> all = Files.walk(root)) {
            for (Path f : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        }
    }
}
