package dev.exactly.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.exactly.http.AllowedMethods;
import dev.exactly.http.UnroutedRequestMetrics;
import dev.exactly.problem.Problem;
import dev.exactly.problem.ProblemMappers;
import io.quarkus.runtime.ShutdownDelayInitiatedEvent;
import io.quarkus.vertx.http.runtime.filters.Filters;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

/**
 * Refuses every request that arrives once a stop (SIGTERM) has begun, before anything of it is
 * read or written: 503 {@code /problems/unavailable} with Retry-After and {@code Connection: close}.
 * Only a probe of {@code /q/health} (GET, HEAD) is still served, so that readiness reports DOWN.
 *
 * <p>Why: Quarkus' graceful stop waits for the requests under way (up to
 * {@code quarkus.shutdown.timeout}), and only then closes the HTTP listener, which closes every
 * connection at once. Until that close the listener still accepts connections and serves their
 * requests; one read after the wait ended was processed (a push stored) while its connection was
 * closed before its answer. Refused here instead, such a request writes nothing, and every request
 * admitted before the stop began is one the wait counts: Quarkus counts a request before it reaches
 * this filter, and the gate closes in the stop's first phase (the {@link ShutdownDelayInitiatedEvent},
 * fired with {@code quarkus.shutdown.delay-enabled}), before the wait reads that count.
 */
@ApplicationScoped
public class StopGate {

    private static final Logger LOG = Logger.getLogger(StopGate.class);

    /** After the request deadline's filter (20000, which bounds this one too), before every other filter. */
    static final int PRIORITY = 19_000;

    /** The answer to a request that arrived after the stop began. */
    static final Problem STOPPING = new Problem("/problems/unavailable", "Service unavailable", 503,
            "The server is stopping; nothing of this request was read or written. Retrying the same request "
                    + "is safe (on another instance, or once this one is back).", null);

    private final AllowedMethods routes;
    private final String answer;
    private volatile boolean closed;

    /** Constructor injection. */
    public StopGate(AllowedMethods routes, ObjectMapper mapper) throws JsonProcessingException {
        this.routes = routes;
        this.answer = mapper.writeValueAsString(STOPPING);
    }

    /** The stop began: from now on requests are refused. */
    void close(@Observes ShutdownDelayInitiatedEvent event) {
        closed = true;
        LOG.info("Stopping: requests arriving from now on are answered 503 (the requests under way are waited for)");
    }

    /** For tests only: serve requests again, as before a stop. */
    void reopen() {
        closed = false;
    }

    /** @return whether requests are refused (a stop began) */
    boolean isClosed() {
        return closed;
    }

    /** Registers the filter. */
    void register(@Observes Filters filters) {
        filters.register(this::filter, PRIORITY);
    }

    private void filter(RoutingContext rc) {
        if (!closed || isHealthProbe(rc)) {
            rc.next();
            return;
        }
        String path = rc.normalizedPath();
        UnroutedRequestMetrics.tag(rc, path == null ? null : routes.templateOf(path));
        rc.response().setStatusCode(503).putHeader(HttpHeaders.CONTENT_TYPE, Problem.MEDIA_TYPE)
                .putHeader("Retry-After", Integer.toString(ProblemMappers.RETRY_AFTER_SECONDS))
                .putHeader(HttpHeaders.CONNECTION, "close");
        // the body, if any, is not read: the connection is closed once the answer is written
        rc.response().end(answer).onComplete(written -> {
            HttpConnection connection = rc.request().connection();
            if (connection != null) {
                connection.close();
            }
        });
    }

    private static boolean isHealthProbe(RoutingContext rc) {
        HttpMethod m = rc.request().method();
        String path = rc.normalizedPath();
        return (m == HttpMethod.GET || m == HttpMethod.HEAD) && path != null
                && (path.equals("/q/health") || path.startsWith("/q/health/"));
    }
}
