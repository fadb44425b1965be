package dev.exactly.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The training run of the server shape's AOT cache (JDK 25: JEP 483's classes loaded and linked,
 * JEP 515's method profiles). Starts the aot-jar package's {@code quarkus-run.jar} with the given
 * JDK's {@code java} from the jar's directory with {@code -XX:AOTCacheOutput=app.aot}, against a
 * database migrated first (an embedded PostgreSQL unless {@code --pg-url}), sends the workload
 * below over one loopback connection per client, then stops the service with SIGTERM: at its exit
 * the JVM records what it loaded and profiled and writes {@code app.aot} next to the jar (it waits
 * for that, up to 5 min). Quarkus' own cache of an aot-jar build comes from a start that ends once
 * the application has started (or from {@code @QuarkusIntegrationTest}s, which this project does not
 * have), so it holds the start-up's classes and no profile of a push; this run adds the push path.
 *
 * <p>The workload, in order: {@code --pushes} one-item pushes of new ids one after the other (the
 * serial chain bench/server-first-pushes times), every tenth followed by a duplicate of an earlier
 * one; a tenth as many ten-item pushes; 4 clients pushing one-item pushes side by side (a tenth as
 * many each: the flushes that group concurrent pushes); and pops of 10 with their batch acks until a
 * queue is drained, at most a twentieth of {@code --pushes} pops.
 *
 * <p>Arguments: {@code --java PATH (the JDK 25's bin/java) [--jar target/aot/quarkus-run.jar]
 * [--pushes N (20000)] [--pg-url jdbc:postgresql://HOST:PORT/postgres]}. Run from the repository
 * root (bench/server-aot does). Loopback only.
 */
public final class ServerAotTraining {

    private static final Pattern LEASED = Pattern.compile(
            "\"messageId\":\"([^\"]+)\".*?\"leaseId\":\"([^\"]+)\"");

    private ServerAotTraining() {
    }

    /**
     * @param args see the class comment
     * @throws Exception when the service cannot be started, a call is not answered as expected, or
     *                   no cache is written
     */
    public static void main(String[] args) throws Exception {
        Path java = null;
        Path jar = Path.of("target", "aot", "quarkus-run.jar");
        int pushes = 20000;
        String pgUrl = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--java" -> java = Path.of(args[++i]);
                case "--jar" -> jar = Path.of(args[++i]);
                case "--pushes" -> pushes = Integer.parseInt(args[++i]);
                case "--pg-url" -> pgUrl = args[++i];
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (java == null) {
            throw new IllegalArgumentException("--java: the bin/java of a JDK 25 or newer");
        }
        Path cache = jar.resolveSibling("app.aot");
        Files.deleteIfExists(cache);
        String apiKey = UUID.randomUUID().toString();
        Path log = Path.of("target", "bench", "aot-training", "service.log").toAbsolutePath();
        try (BenchDatabase db = pgUrl == null ? BenchDatabase.embedded("on") : BenchDatabase.external(pgUrl)) {
            db.prepare(Path.of("").toAbsolutePath());
            // the relative cache path: the JVM starts in the jar's directory (as it must to use the cache)
            ServerProcess server = ServerProcess.start(java, jar, db.reactiveUrl(BenchDatabase.NAME), db.user(),
                    Suite.sha256(apiKey), Map.of(), log, List.of("-XX:AOTCacheOutput=app.aot"), true);
            int exit;
            try {
                System.out.printf("first answered push after %.0f ms%n", server.awaitFirstPush(apiKey, Duration.ofSeconds(120)));
                train(server.baseUrl(), apiKey, pushes);
            } finally {
                exit = server.stop(Duration.ofMinutes(5));
            }
            if (!Files.isRegularFile(cache)) {
                throw new IllegalStateException("no AOT cache at " + cache + " (the service exited with " + exit + "); see " + log);
            }
            System.out.printf("AOT cache %s: %d MB (the service exited with %d; its log: %s)%n", cache,
                    Files.size(cache) >> 20, exit, log);
        }
    }

    private static void train(URI base, String apiKey, int pushes) throws Exception {
        HttpClient http = client();
        long t = System.nanoTime();
        String run = Long.toString(System.currentTimeMillis(), 36);
        for (int i = 0; i < pushes; i++) {
            String id = "s-" + run + "-" + i;
            push(http, base, apiKey, item("training-serial", id, i), "queued");
            if (i % 10 == 9) {
                push(http, base, apiKey, item("training-serial", "s-" + run + "-" + (i - 5), i - 5), "duplicate");
            }
        }
        System.out.printf("%d one-item pushes and %d duplicates in %.1f s%n", pushes, pushes / 10, (System.nanoTime() - t) / 1e9);
        t = System.nanoTime();
        for (int i = 0; i < pushes / 10; i++) {
            StringBuilder body = new StringBuilder();
            for (int k = 0; k < 10; k++) {
                body.append(k == 0 ? "" : ",").append(item("training-batch", "b-" + run + "-" + i + "-" + k, k));
            }
            push(http, base, apiKey, body.toString(), "queued");
        }
        System.out.printf("%d ten-item pushes in %.1f s%n", pushes / 10, (System.nanoTime() - t) / 1e9);
        t = System.nanoTime();
        ExecutorService clients = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < 4; c++) {
                int client = c;
                done.add(clients.submit(() -> {
                    HttpClient own = client();
                    for (int i = 0; i < pushes / 10; i++) {
                        push(own, base, apiKey, item("training-concurrent", "c-" + run + "-" + client + "-" + i, i), "queued");
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            clients.shutdown();
        }
        System.out.printf("4 clients × %d one-item pushes in %.1f s%n", pushes / 10, (System.nanoTime() - t) / 1e9);
        t = System.nanoTime();
        int popped = 0;
        for (int p = 0; p < pushes / 20; p++) {
            String messages = call(http, base, apiKey, "/api/v1/pop", "{\"queue\":\"training-batch\",\"batch\":10}");
            Matcher m = LEASED.matcher(messages);
            StringBuilder acks = new StringBuilder();
            while (m.find()) {
                acks.append(acks.isEmpty() ? "" : ",").append("{\"messageId\":\"").append(m.group(1))
                        .append("\",\"leaseId\":\"").append(m.group(2)).append("\",\"status\":\"completed\"}");
                popped++;
            }
            if (acks.isEmpty()) {
                break;
            }
            String answer = call(http, base, apiKey, "/api/v1/ack/batch", "{\"items\":[" + acks + "]}");
            if (!answer.contains("\"acked\"")) {
                throw new IllegalStateException("ack: " + answer);
            }
        }
        System.out.printf("%d messages popped and acked in %.1f s%n", popped, (System.nanoTime() - t) / 1e9);
    }

    private static HttpClient client() {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    }

    private static String item(String queue, String transactionId, int n) {
        return "{\"queue\":\"" + queue + "\",\"transactionId\":\"" + transactionId + "\",\"payload\":{\"n\":" + n + "}}";
    }

    private static void push(HttpClient http, URI base, String apiKey, String items, String expected) throws Exception {
        String answer = call(http, base, apiKey, "/api/v1/push", "{\"items\":[" + items + "]}");
        if (!answer.contains("\"" + expected + "\"")) {
            throw new IllegalStateException("push answered " + answer + ", expected " + expected);
        }
    }

    private static String call(HttpClient http, URI base, String apiKey, String path, String body) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + apiKey)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException(path + ": HTTP " + r.statusCode() + " " + r.body());
        }
        return r.body();
    }
}
