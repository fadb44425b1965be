package dev.exactly.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The HTTP load driver: pushes {@link Workload} requests to POST /api/v1/push of a running
 * service with java.net.http, closed loop, and measures throughput and latency (HdrHistogram).
 * Meant for loopback targets. Every request carries {@code Authorization: Bearer <apiKey>}.
 */
public final class HttpLoad {

    private static final String DUPLICATE = "\"status\":\"duplicate\"";

    /**
     * @param baseUrl     e.g. http://127.0.0.1:8080
     * @param apiKey      sent as a bearer token; null sends no Authorization header
     * @param concurrency requests in flight
     * @param warmup      unrecorded first period
     * @param measure     recorded period
     * @param maxRequests hard bound on requests sent
     */
    public record Options(URI baseUrl, String apiKey, int concurrency, Duration warmup, Duration measure,
                          long maxRequests) {
    }

    private HttpLoad() {
    }

    /**
     * Runs the load and returns what was measured. A non-200 answer counts as an error (the
     * first one's status and body are kept in {@link LoadResult#firstError()}).
     *
     * @throws InterruptedException when interrupted while waiting for the run to end
     */
    public static LoadResult run(Options o, Workload w) throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "bench-http");
            t.setDaemon(true);
            return t;
        });
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(pool)
                .connectTimeout(Duration.ofSeconds(5)).build();
        URI push = o.baseUrl().resolve("/api/v1/push");
        try {
            return ClosedLoop.run(w, new ClosedLoop.Options(o.concurrency(), o.warmup(), o.measure(), o.maxRequests()),
                    batch -> {
                        HttpRequest.Builder rb = HttpRequest.newBuilder(push).timeout(Duration.ofSeconds(30))
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(w.json(batch)));
                        if (o.apiKey() != null) {
                            rb.header("Authorization", "Bearer " + o.apiKey());
                        }
                        return client.sendAsync(rb.build(), HttpResponse.BodyHandlers.ofString()).thenApply(r -> {
                            if (r.statusCode() != 200) {
                                String body = r.body();
                                throw new CompletionException(new IllegalStateException("HTTP " + r.statusCode() + ": "
                                        + body.substring(0, Math.min(300, body.length()))));
                            }
                            return count(r.body());
                        });
                    });
        } finally {
            pool.shutdownNow();
        }
    }

    private static int count(String body) {
        int n = 0;
        for (int at = body.indexOf(DUPLICATE); at >= 0; at = body.indexOf(DUPLICATE, at + DUPLICATE.length())) {
            n++;
        }
        return n;
    }
}
