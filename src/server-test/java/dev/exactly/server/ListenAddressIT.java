package dev.exactly.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.TestDatabase;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The server's listen address, as a user starts it: the packaged application
 * (target/quarkus-app/quarkus-run.jar, {@code java -jar}) in a folder of its own. On the embedded
 * PostgreSQL (no datasource configured) it listens on 127.0.0.1 only; a quarkus.http.host set
 * anywhere wins (here in the folder's config/application.properties, the lowest-ordinal place a
 * user writes to); pointed at a database of its own (QUARKUS_DATASOURCE_REACTIVE_URL) it keeps
 * Quarkus' default, every interface. The address is read from the kernel's table of listening
 * sockets of the process, and the server is called on loopback.
 */
class ListenAddressIT {

    private final List<PackagedServer> started = new ArrayList<>();
    private final List<Path> dataDirs = new ArrayList<>();

    @Test
    void theEmbeddedDefaultListensOnLoopbackOnly() throws Exception {
        Path dir = folder();
        PackagedServer s = start(dir, Map.of());
        assertEquals("127.0.0.1", s.host(), s.output());
        assertEquals(List.of("127.0.0.1"), listening(s.process().pid(), s.port()), s.output());
        assertEquals(200, status(s.port(), "/q/health/live"));
        assertTrue(s.output().contains("using the embedded PostgreSQL"), s.output());
    }

    @Test
    void anExplicitHostWinsOnTheEmbeddedDefault() throws Exception {
        Path dir = folder();
        Files.createDirectories(dir.resolve("config"));
        Files.writeString(dir.resolve("config").resolve("application.properties"), "quarkus.http.host=127.0.0.2\n");
        PackagedServer s = start(dir, Map.of());
        assertEquals("127.0.0.2", s.host(), s.output());
        assertEquals(List.of("127.0.0.2"), listening(s.process().pid(), s.port()), s.output());
    }

    @Test
    void aServerOnItsOwnDatabaseKeepsQuarkusDefault() throws Exception {
        String db = TestDatabase.createDatabase();
        Path dir = folder();
        PackagedServer s = start(dir, Map.of(
                "QUARKUS_DATASOURCE_REACTIVE_URL", TestDatabase.reactiveUrl(db),
                "QUARKUS_DATASOURCE_USERNAME", "postgres",
                "QUARKUS_DATASOURCE_PASSWORD", ""));
        assertEquals("0.0.0.0", s.host(), s.output());
        assertEquals(List.of("0.0.0.0"), listening(s.process().pid(), s.port()), s.output());
        assertEquals(200, status(s.port(), "/q/health/live"));
        assertTrue(!Files.exists(dir.resolve(".exactly")), "no embedded database was started");
    }

    private Path folder() throws IOException {
        Path dir = Path.of("target", "listen-" + UUID.randomUUID()).toAbsolutePath();
        Files.createDirectories(dir);
        dataDirs.add(dir.resolve(".exactly").resolve("pgdata"));
        return dir;
    }

    /** Starts the packaged server in {@code dir} on a free port; returns once it logs where it listens. */
    private PackagedServer start(Path dir, Map<String, String> env) throws Exception {
        PackagedServer s = PackagedServer.start(dir, env, 120);
        started.add(s);
        return s;
    }

    /**
     * @return the local addresses the process listens on at {@code port} (IPv4 and IPv6), from
     *         /proc/PID/net/tcp and tcp6; an IPv6 wildcard counts as 0.0.0.0 (it takes IPv4 too)
     */
    static List<String> listening(long pid, int port) throws IOException {
        List<String> out = new ArrayList<>();
        String hexPort = String.format(Locale.ROOT, "%04X", port);
        for (String table : List.of("tcp", "tcp6")) {
            Path f = Path.of("/proc", Long.toString(pid), "net", table);
            if (!Files.exists(f)) {
                continue;
            }
            for (String line : Files.readAllLines(f)) {
                String[] c = line.trim().split("\\s+");
                if (c.length > 3 && c[1].endsWith(":" + hexPort) && c[3].equals("0A")) { // 0A: LISTEN
                    out.add(address(c[1].substring(0, c[1].indexOf(':'))));
                }
            }
        }
        return out.stream().distinct().toList();
    }

    /**
     * An address of /proc/net/tcp (IPv4: one 32-bit word) or tcp6 (four), each word in the host's
     * (little-endian) byte order; an IPv4-mapped IPv6 address (::ffff:a.b.c.d, how a Java socket
     * bound to an IPv4 address shows in tcp6) and the IPv6 wildcard (which takes IPv4 too) are
     * written as IPv4.
     */
    static String address(String hex) {
        if (hex.length() == 8) {
            return ipv4(hex);
        }
        if (hex.matches("0+")) {
            return "0.0.0.0";
        }
        if (hex.startsWith("0000000000000000FFFF0000")) {
            return ipv4(hex.substring(24));
        }
        return "ipv6:" + hex;
    }

    private static String ipv4(String word) {
        long v = Long.parseLong(word, 16);
        return (v & 0xff) + "." + (v >> 8 & 0xff) + "." + (v >> 16 & 0xff) + "." + (v >> 24 & 0xff);
    }

    private static int status(int port, String path) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + path).toURL().openConnection();
        try {
            return c.getResponseCode();
        } finally {
            c.disconnect();
        }
    }

    private static boolean isPostgresOf(ProcessHandle h, Path data) {
        try {
            String cmdline = Files.readString(Path.of("/proc", Long.toString(h.pid()), "cmdline")).replace('\0', ' ');
            return cmdline.contains("postgres") && cmdline.contains(data.toString());
        } catch (IOException e) {
            return false;
        }
    }

    @AfterEach
    void stop() throws Exception {
        for (PackagedServer s : started) {
            s.stop();
        }
        for (Path data : dataDirs) {
            stopLeftoverPostgres(data);
        }
    }

    /**
     * The embedded PostgreSQL normally stops with its service; one left behind in {@code data} is
     * stopped by its PID (best effort).
     */
    static void stopLeftoverPostgres(Path data) throws IOException {
        Path pidFile = data.resolve("postmaster.pid");
        if (Files.exists(pidFile)) {
            long pid = Long.parseLong(Files.readAllLines(pidFile).get(0).trim());
            ProcessHandle.of(pid).filter(h -> isPostgresOf(h, data)).ifPresent(h -> {
                try {
                    new ProcessBuilder("kill", "-QUIT", Long.toString(pid)).start().waitFor();
                    h.onExit().get(30, TimeUnit.SECONDS);
                } catch (Exception e) {
                    // best effort
                }
            });
        }
    }
}
