package dev.exactly.server;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.TestDatabase;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The packaged server as a user starts it, for the integration tests of the server shape:
 * {@code java -jar target/quarkus-app/quarkus-run.jar} in a folder of its own, on a free port
 * ({@code -Dquarkus.http.port=0}), with no QUARKUS_* or EXACTLY_* variable of the test's own
 * environment, only those given. The server's output (stdout and stderr) is kept; the start returns
 * once the server logs where it listens.
 *
 * @param process the server's process (the caller stops it)
 * @param host    the address it logged ("Listening on: http://HOST:PORT")
 * @param port    the port it logged
 * @param log     everything it printed so far
 */
public record PackagedServer(Process process, String host, int port, StringBuilder log) {

    /** The jar mvn package builds; the tests that start it run in the verify phase. */
    public static final Path JAR = Path.of("target", "quarkus-app", "quarkus-run.jar");
    private static final Pattern LISTENING = Pattern.compile("Listening on: http://([^:/]+):(\\d+)");

    /** What the server printed so far. */
    public String output() {
        synchronized (log) {
            return log.toString();
        }
    }

    /**
     * Starts the packaged server on the test database {@code db}, listening on 127.0.0.1, with the API
     * key {@code apiKey} (its SHA-256 configured) and the further variables {@code extra} gives for its
     * folder, a new {@code target/<folderPrefix>-<uuid>}; waits up to 180 s for it to listen.
     */
    public static PackagedServer onDatabase(String folderPrefix, String db, String apiKey,
                                            Function<Path, Map<String, String>> extra) throws Exception {
        Path dir = Path.of("target", folderPrefix + "-" + UUID.randomUUID()).toAbsolutePath();
        Files.createDirectories(dir);
        Map<String, String> env = new HashMap<>(Map.of(
                "QUARKUS_DATASOURCE_REACTIVE_URL", TestDatabase.reactiveUrl(db),
                "QUARKUS_DATASOURCE_USERNAME", "postgres",
                "QUARKUS_DATASOURCE_PASSWORD", "",
                "QUARKUS_HTTP_HOST", "127.0.0.1",
                "EXACTLY_AUTH_API_KEY_SHA256", HexFormat.of().formatHex(
                        MessageDigest.getInstance("SHA-256").digest(apiKey.getBytes(StandardCharsets.UTF_8)))));
        env.putAll(extra.apply(dir));
        return start(dir, env, 180);
    }

    /**
     * Starts the packaged server in {@code dir} with the environment variables {@code env}.
     *
     * @param timeoutSeconds how long to wait for the "Listening on" line
     * @throws java.util.concurrent.ExecutionException when the server exited before it listened
     *         (the message holds its output)
     * @throws java.util.concurrent.TimeoutException when it did not listen in time
     */
    public static PackagedServer start(Path dir, Map<String, String> env, int timeoutSeconds) throws Exception {
        assertTrue(Files.isRegularFile(JAR), JAR + " is built by mvn package (this test runs in verify)");
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dquarkus.http.port=0", "-jar", JAR.toAbsolutePath().toString())
                .directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().keySet().removeIf(k -> k.startsWith("QUARKUS_") || k.startsWith("EXACTLY_"));
        pb.environment().putAll(env);
        Process p = pb.start();
        StringBuilder log = new StringBuilder();
        CompletableFuture<Matcher> listening = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    synchronized (log) {
                        log.append(line).append('\n');
                    }
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) {
                        listening.complete(m);
                    }
                }
            } catch (IOException e) {
                listening.completeExceptionally(e);
            }
            listening.completeExceptionally(new IllegalStateException("the server exited:\n" + log));
        }, "server-output");
        reader.setDaemon(true);
        reader.start();
        try {
            Matcher m = listening.get(timeoutSeconds, TimeUnit.SECONDS);
            return new PackagedServer(p, m.group(1), Integer.parseInt(m.group(2)), log);
        } catch (Exception e) {
            p.destroyForcibly();
            throw e;
        }
    }

    /** Stops the server (SIGTERM, then SIGKILL after 30 s) and waits for it. */
    public void stop() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
