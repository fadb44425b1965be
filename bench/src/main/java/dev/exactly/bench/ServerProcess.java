package dev.exactly.bench;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The service under test as a separate JVM process ({@code java -jar quarkus-run.jar}, JVM
 * mode), bound to 127.0.0.1 on a free port and pointed at the benchmark database. Settings are
 * passed as environment variables (SmallRye Config's env form), so a setting the build does not
 * know yet is ignored rather than refused. Stopped by its own PID only.
 */
public final class ServerProcess implements AutoCloseable {

    private static final Pattern STARTED = Pattern.compile("started in ([0-9.]+)s");

    private final Process process;
    private final long spawnedNanos;
    private final URI baseUrl;
    private final Path log;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    private ServerProcess(Process process, long spawnedNanos, URI baseUrl, Path log) {
        this.process = process;
        this.spawnedNanos = spawnedNanos;
        this.baseUrl = baseUrl;
        this.log = log;
    }

    /**
     * Spawns the service.
     *
     * @param jar          target/quarkus-app/quarkus-run.jar
     * @param reactiveUrl  postgresql://host:port/db
     * @param user         database user
     * @param apiKeySha256 SHA-256 hex of the API key the driver sends (exactly.auth.api-key-sha256)
     * @param settings     further settings as property names (e.g. exactly.dedup-cache.enabled=true)
     * @param log          file for the process's output
     * @throws IOException when the process cannot be spawned
     */
    public static ServerProcess start(Path jar, String reactiveUrl, String user, String apiKeySha256,
                                      Map<String, String> settings, Path log) throws IOException {
        return start(jar, reactiveUrl, user, apiKeySha256, settings, log, List.of());
    }

    /**
     * Spawns the service with extra JVM options (e.g. a JFR recording), placed before -jar.
     *
     * @param jvmOptions options for the service's JVM
     * @throws IOException when the process cannot be spawned
     * @see #start(Path, String, String, String, Map, Path)
     */
    public static ServerProcess start(Path jar, String reactiveUrl, String user, String apiKeySha256,
                                      Map<String, String> settings, Path log, List<String> jvmOptions)
            throws IOException {
        return start(jar, reactiveUrl, user, apiKeySha256, settings, log, jvmOptions, false);
    }

    /**
     * Spawns the service with extra JVM options, and when {@code fromJarDirectory}, in the jar's own
     * directory as {@code java -jar quarkus-run.jar}: the AppCDS archive the build writes
     * (app-cds.jsa) records the class path relative to that directory, and a JVM started elsewhere
     * finds its entries missing and ignores the archive without a word.
     *
     * @throws IOException when the process cannot be spawned
     * @see #start(Path, String, String, String, Map, Path, List)
     */
    public static ServerProcess start(Path jar, String reactiveUrl, String user, String apiKeySha256,
                                      Map<String, String> settings, Path log, List<String> jvmOptions,
                                      boolean fromJarDirectory) throws IOException {
        return start(Path.of(System.getProperty("java.home"), "bin", "java"), jar, reactiveUrl, user, apiKeySha256,
                settings, log, jvmOptions, fromJarDirectory);
    }

    /**
     * Spawns the service on another JVM than this one's (e.g. a JDK 25 for its AOT cache).
     *
     * @param java the {@code java} executable to start the service with
     * @throws IOException when the process cannot be spawned
     * @see #start(Path, String, String, String, Map, Path, List, boolean)
     */
    public static ServerProcess start(Path java, Path jar, String reactiveUrl, String user, String apiKeySha256,
                                      Map<String, String> settings, Path log, List<String> jvmOptions,
                                      boolean fromJarDirectory) throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Map<String, String> env = new HashMap<>();
        env.put("QUARKUS_DATASOURCE_REACTIVE_URL", reactiveUrl);
        env.put("QUARKUS_DATASOURCE_USERNAME", user);
        env.put("QUARKUS_DATASOURCE_PASSWORD", "");
        env.put("QUARKUS_HTTP_HOST", "127.0.0.1");
        env.put("QUARKUS_HTTP_PORT", Integer.toString(port));
        env.put("EXACTLY_AUTH_API_KEY_SHA256", apiKeySha256);
        settings.forEach((k, v) -> env.put(envName(k), v));
        Files.createDirectories(log.getParent());
        List<String> command = new ArrayList<>();
        command.add(java.toString());
        command.addAll(jvmOptions);
        command.add("-jar");
        command.add(fromJarDirectory ? jar.getFileName().toString() : jar.toString());
        ProcessBuilder pb = new ProcessBuilder(command);
        if (fromJarDirectory) {
            pb.directory(jar.toAbsolutePath().getParent().toFile());
        }
        pb.environment().putAll(env);
        pb.redirectErrorStream(true).redirectOutput(log.toFile());
        long t = System.nanoTime();
        Process p = pb.start();
        // an interrupted suite (Ctrl-C) must not leave the service running: end it, by its own handle
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (p.isAlive()) {
                p.destroyForcibly();
            }
        }));
        return new ServerProcess(p, t, URI.create("http://127.0.0.1:" + port), log);
    }

    /** SmallRye Config's environment-variable form of a property name. */
    static String envName(String property) {
        return property.toUpperCase().replaceAll("[^A-Z0-9]", "_");
    }

    /** http://127.0.0.1:PORT */
    public URI baseUrl() {
        return baseUrl;
    }

    /** The process id. */
    public long pid() {
        return process.pid();
    }

    /**
     * Polls POST /api/v1/push (one item) every 10 ms until it is answered 200, and returns the
     * milliseconds from spawning the process to that answer: the cold start, the analogue of a
     * function's init phase plus its first invocation.
     *
     * @throws IllegalStateException when the process dies, answers 401/403 (API key refused) or
     *                               does not answer within {@code timeout}
     */
    public double awaitFirstPush(String apiKey, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        String body = "{\"items\":[{\"queue\":\"bench-coldstart\",\"payload\":{}}]}";
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the service exited with " + process.exitValue() + "; see " + log);
            }
            try {
                HttpRequest.Builder rb = HttpRequest.newBuilder(baseUrl.resolve("/api/v1/push"))
                        .timeout(Duration.ofSeconds(5)).header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body));
                if (apiKey != null) {
                    rb.header("Authorization", "Bearer " + apiKey);
                }
                HttpResponse<String> r = http.send(rb.build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    return (System.nanoTime() - spawnedNanos) / 1e6;
                }
                if (r.statusCode() == 401 || r.statusCode() == 403) {
                    throw new IllegalStateException("the service refused the API key: HTTP " + r.statusCode());
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(10);
        }
        throw new IllegalStateException("no answered push within " + timeout + "; see " + log);
    }

    /** Quarkus's own "started in X s" figure from the log, in milliseconds, or NaN. */
    public double reportedStartMillis() throws IOException {
        Matcher m = STARTED.matcher(Files.readString(log));
        return m.find() ? Double.parseDouble(m.group(1)) * 1000 : Double.NaN;
    }

    /**
     * The Prometheus text of /q/metrics as name → value summed over label sets, plus each
     * labelled series under its full text (e.g. {@code x_total{kind="full"}}).
     *
     * @return empty when metrics are not served
     */
    public Map<String, Double> metrics() {
        Map<String, Double> out = new HashMap<>();
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(baseUrl.resolve("/q/metrics"))
                    .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                return out;
            }
            for (String line : r.body().split("\n")) {
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                int brace = line.indexOf('{');
                int space = line.lastIndexOf(' ');
                if (space < 0) {
                    continue;
                }
                String name = brace > 0 && brace < space ? line.substring(0, brace) : line.substring(0, line.indexOf(' '));
                try {
                    double v = Double.parseDouble(line.substring(space + 1));
                    out.merge(name, v, Double::sum);
                    if (brace > 0 && brace < space) {
                        out.merge(line.substring(0, space), v, Double::sum); // the series, labels included
                    }
                } catch (NumberFormatException ignored) {
                    // not a sample line
                }
            }
        } catch (IOException | InterruptedException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
        }
        return out;
    }

    /** Stops the process (SIGTERM, then SIGKILL after 15 s) and waits for it. */
    @Override
    public void close() throws InterruptedException {
        stop(Duration.ofSeconds(15));
    }

    /**
     * Stops the process with SIGTERM and waits up to {@code grace} for it to exit (a JVM writing an
     * AOT cache at its exit takes longer than a plain stop), then SIGKILL.
     *
     * @return the exit value, or -1 when it had to be killed
     */
    public int stop(Duration grace) throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
                return -1;
            }
        }
        return process.isAlive() ? -1 : process.exitValue();
    }
}
