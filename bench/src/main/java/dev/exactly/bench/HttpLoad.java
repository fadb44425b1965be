package dev.exactly.bench;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The HTTP load driver: pushes {@link Workload} requests to POST /api/v1/push of a running
 * service, closed loop, and measures throughput and latency (HdrHistogram). Meant for loopback
 * targets. Every request carries {@code Authorization: Bearer <apiKey>}.
 *
 * <p>The client is Vert.x core's HTTP/1.1 client on one event loop with a keep-alive connection
 * per request chain: the load generator shares the machine's cores with the service and its
 * database, so it should take as little of them as it can (java.net.http takes about four times
 * the service's own CPU per one-item request on this machine: bench/findings.md, "The load
 * generator took more CPU than the service").
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
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(1)
                .setInternalBlockingPoolSize(1));
        try {
            HttpClient client = vertx.createHttpClient(new HttpClientOptions()
                            .setDefaultHost(o.baseUrl().getHost()).setDefaultPort(o.baseUrl().getPort())
                            .setKeepAlive(true).setConnectTimeout(5_000),
                    new PoolOptions().setHttp1MaxSize(o.concurrency()).setMaxWaitQueueSize(-1));
            String authorization = o.apiKey() == null ? null : "Bearer " + o.apiKey();
            return ClosedLoop.run(w, new ClosedLoop.Options(o.concurrency(), o.warmup(), o.measure(), o.maxRequests()),
                    batch -> {
                        RequestOptions request = new RequestOptions().setMethod(HttpMethod.POST).setURI("/api/v1/push")
                                .setIdleTimeout(30_000).putHeader("Content-Type", "application/json");
                        if (authorization != null) {
                            request.putHeader("Authorization", authorization);
                        }
                        Buffer body = Buffer.buffer(w.json(batch));
                        return client.request(request)
                                .compose(r -> r.send(body))
                                .compose(response -> response.body().map(b -> {
                                    String text = b.toString(StandardCharsets.UTF_8);
                                    if (response.statusCode() != 200) {
                                        throw new IllegalStateException("HTTP " + response.statusCode() + ": "
                                                + text.substring(0, Math.min(300, text.length())));
                                    }
                                    return count(text);
                                }))
                                .toCompletionStage();
                    });
        } finally {
            try {
                vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                Suite.log("HttpLoad: the load generator's Vert.x did not close: " + e);
            }
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
