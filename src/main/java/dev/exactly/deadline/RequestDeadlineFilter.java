package dev.exactly.deadline;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.exactly.consume.PopRequest;
import dev.exactly.consume.PopService;
import dev.exactly.db.DeadlineExceededException;
import dev.exactly.db.RequestDeadline;
import dev.exactly.http.AllowedMethods;
import dev.exactly.http.UnroutedRequestMetrics;
import dev.exactly.problem.DatabaseFailures;
import dev.exactly.problem.Problem;
import dev.exactly.problem.ProblemMappers;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.vertx.http.runtime.filters.Filters;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Gives every request its deadline ({@code exactly.request.deadline-ms}, {@link RequestConfig})
 * the moment it arrives, before any other filter: on the request's Vert.x context
 * ({@link RequestDeadline}), where the database work done for it finds it and is bounded by it
 * ({@link dev.exactly.db.BorrowedConnections}, which answers in time with a problem of its own). A
 * request that still has no answer when its deadline comes is answered here: 408
 * {@code /problems/request-timeout} when its body has not all arrived (the client held it; the
 * connection is closed, and no database failure is counted), else 503
 * {@code /problems/database-timeout} with Retry-After (something other than the database's own
 * limits held it). Checks the deadline against the HTTP idle timeout and the longest long poll at
 * start-up.
 */
@ApplicationScoped
public class RequestDeadlineFilter {

    private static final Logger LOG = Logger.getLogger(RequestDeadlineFilter.class);

    /** Runs before every other filter (the API key's is 1000, the body limit's 100). */
    static final int PRIORITY = 20_000;

    /** The answer to a request whose body had not all arrived by its deadline. */
    static final Problem REQUEST_TIMEOUT = new Problem("/problems/request-timeout", "Request timeout", 408,
            "The request's body had not all arrived by its deadline; nothing of it was read or written, and the "
                    + "connection is closed.", null);

    /** The key, and its variable, for messages. */
    static final String KEY = "exactly.request.deadline-ms (EXACTLY_REQUEST_DEADLINE_MS)";

    private final long deadlineMs;
    private final Duration idleTimeout;
    private final DatabaseFailures failures;
    private final AllowedMethods routes;
    private final String answer;
    private final String bodyTimeout;
    private volatile boolean warnedNoContext;

    /** Constructor injection. */
    public RequestDeadlineFilter(RequestConfig config,
                                 @ConfigProperty(name = "quarkus.http.idle-timeout", defaultValue = "30M") Duration idleTimeout,
                                 DatabaseFailures failures, AllowedMethods routes, ObjectMapper mapper) throws JsonProcessingException {
        this.deadlineMs = config.deadlineMs();
        this.routes = routes;
        this.idleTimeout = idleTimeout;
        this.failures = failures;
        this.answer = mapper.writeValueAsString(ProblemMappers.DEADLINE);
        this.bodyTimeout = mapper.writeValueAsString(REQUEST_TIMEOUT);
    }

    /**
     * Refuses to start with a deadline the service cannot keep or that would cut requests short.
     *
     * @throws IllegalStateException when the deadline is not positive, not below
     *                               quarkus.http.idle-timeout, or leaves no room for the longest long poll
     */
    void check(@Observes StartupEvent event) {
        check(deadlineMs, idleTimeout);
        LOG.infof("Request deadline: %d ms (exactly.request.deadline-ms)", deadlineMs);
    }

    /** The start-up check, on its own (see {@link #check(StartupEvent)}). */
    static void check(long deadlineMs, Duration idleTimeout) {
        long longestPoll = PopRequest.MAX_WAIT_MILLIS + PopService.LAST_ATTEMPT_MARGIN_MS;
        if (deadlineMs <= 0) {
            throw new IllegalStateException(KEY + " must be positive, not " + deadlineMs);
        }
        if (deadlineMs >= idleTimeout.toMillis()) {
            throw new IllegalStateException(KEY + " is " + deadlineMs + " ms: it must be below quarkus.http.idle-timeout ("
                    + idleTimeout.toMillis() + " ms), or a request's answer could come after its connection was closed");
        }
        if (deadlineMs < longestPoll) {
            throw new IllegalStateException(KEY + " is " + deadlineMs + " ms: it must leave room for the longest long poll, "
                    + PopRequest.MAX_WAIT_MILLIS + " ms of waitMillis and " + PopService.LAST_ATTEMPT_MARGIN_MS
                    + " ms for its last attempt: at least " + longestPoll + " ms");
        }
    }

    /** Registers the filter. */
    void register(@Observes Filters filters) {
        filters.register(this::filter, PRIORITY);
    }

    private void filter(RoutingContext rc) {
        if (!RequestDeadline.begin(System.nanoTime() + deadlineMs * 1_000_000L) && !warnedNoContext) {
            warnedNoContext = true;
            LOG.warn("A request is not served on a Vert.x duplicated context: its database work has no deadline of "
                    + "its own (the request is still answered by its deadline here)");
        }
        long timer = rc.vertx().setTimer(deadlineMs, id -> expired(rc));
        rc.addEndHandler(ended -> rc.vertx().cancelTimer(timer));
        rc.next();
    }

    private void expired(RoutingContext rc) {
        HttpServerResponse r = rc.response();
        if (r.ended() || r.closed() || r.headWritten()) {
            return;
        }
        if (!rc.request().isEnded()) {
            UnroutedRequestMetrics.tag(rc, routes.templateOf(rc.normalizedPath()));
            r.setStatusCode(408).putHeader("Content-Type", Problem.MEDIA_TYPE).putHeader(HttpHeaders.CONNECTION, "close");
            r.end(bodyTimeout).onComplete(written -> {
                HttpConnection connection = rc.request().connection();
                if (connection != null) {
                    connection.close();
                }
            });
            return;
        }
        failures.failed(DatabaseFailures.Kind.DATABASE_TIMEOUT,
                new DeadlineExceededException(rc.request().method() + " " + rc.normalizedPath() + " had no answer by its deadline"));
        r.setStatusCode(503).putHeader("Content-Type", Problem.MEDIA_TYPE)
                .putHeader("Retry-After", Integer.toString(ProblemMappers.RETRY_AFTER_SECONDS)).end(answer);
    }
}
