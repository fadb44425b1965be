package dev.exactly.server;

import dev.exactly.push.HotPathPriming;
import io.quarkus.runtime.StartupEvent;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.PoolOptions;
import io.vertx.ext.web.Router;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * Warms the push path when the server starts, after the other start-up observers: Quarkus opens
 * the HTTP listener only once every start-up observer has returned, so the first pushes it answers
 * find that code compiled. Two parts, neither reaching the database:
 * <ul>
 *   <li>{@link HotPathPriming}, {@code exactly.priming.rounds} one-item pushes in memory (binding,
 *       validation, the engine, the SQL client's codecs, the answer);</li>
 *   <li>a fifth as many HTTP requests of a push, through the application's router on a listener of
 *       its own on 127.0.0.1 (an ephemeral port, closed before the service's listener opens), each
 *       with a key that is not the service's, so each is refused with 401 before its body is read:
 *       Netty's and Vert.x' HTTP codecs, the router, the API key check, the problem+json answer.</li>
 * </ul>
 * The start is longer by their time, which the log states. The server shape's only
 * (src/server/java): the Lambda shape primes before a SnapStart checkpoint instead, never in an
 * on-demand start.
 */
@ApplicationScoped
public class StartupPriming {

    private static final Logger LOG = Logger.getLogger(StartupPriming.class);
    private static final String BODY = "{\"items\":[{\"queue\":\"priming\",\"transactionId\":\"t-1\",\"payload\":{\"n\":1}}]}";

    private final HotPathPriming priming;
    private final Vertx vertx;
    private final Router router;

    /** Constructor injection: the priming, Quarkus' Vert.x and the application's router. */
    public StartupPriming(HotPathPriming priming, Vertx vertx, Router router) {
        this.priming = priming;
        this.vertx = vertx;
        this.router = router;
    }

    void prime(@Observes @Priority(Interceptor.Priority.PLATFORM_AFTER) StartupEvent event) {
        if (priming.rounds() <= 0) {
            return;
        }
        priming.prime(false, "Start-up: before the HTTP listener opens");
        try {
            primeHttp(Math.max(1, priming.rounds() / 5));
        } catch (Exception e) {
            // a start without this part still serves: its first requests are slower
            LOG.warnf(e, "Start-up: priming the HTTP path failed");
        }
    }

    /**
     * Sends {@code requests} refused pushes, one after the other on one connection, to the router
     * on a loopback listener of its own, then closes both.
     *
     * @return how many were answered 401 (all of them, unless the routes changed)
     */
    int primeHttp(int requests) throws Exception {
        long start = System.nanoTime();
        HttpServer server = vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0))
                .requestHandler(router);
        server.listen().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        HttpClient client = vertx.createHttpClient(new HttpClientOptions().setDefaultHost("127.0.0.1")
                .setDefaultPort(server.actualPort()).setKeepAlive(true), new PoolOptions().setHttp1MaxSize(1));
        Buffer body = Buffer.buffer(BODY);
        int refused = 0;
        try {
            for (int i = 0; i < requests; i++) {
                int status = client.request(HttpMethod.POST, "/api/v1/push")
                        .compose(r -> r.putHeader("Content-Type", "application/json")
                                .putHeader("Authorization", "Bearer not-the-service-key").send(body))
                        .compose(response -> response.body().map(b -> response.statusCode()))
                        .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
                if (status == 401) {
                    refused++;
                }
            }
        } finally {
            client.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
            server.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
        LOG.infof("Start-up: before the HTTP listener opens, %d HTTP requests of the push path with a wrong key, "
                + "%d of them answered 401 as meant, in %d ms", requests, refused, (System.nanoTime() - start) / 1_000_000);
        return refused;
    }
}
