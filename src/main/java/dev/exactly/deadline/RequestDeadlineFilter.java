package dev.exactly.deadline;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.exactly.consume.PopRequest;
import dev.exactly.consume.PopService;
import dev.exactly.db.DeadlineExceededException;
import dev.exactly.db.RequestDeadline;
import dev.exactly.problem.DatabaseFailures;
import dev.exactly.problem.Problem;
import dev.exactly.problem.ProblemMappers;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.vertx.http.runtime.filters.Filters;
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
 * request that still has no answer when its deadline comes (something other than the database
 * held it) is answered here: 503 {@code /problems/database-timeout} with Retry-After. Checks the
 * deadline against the HTTP idle timeout and the longest long poll at start-up.
 */
@ApplicationScoped
public class RequestDeadlineFilter {

    private static final Logger LOG = Logger.getLogger(RequestDeadlineFilter.class);

    /** Runs before every other filter (the API key's is 1000, the body limit's 100). */
    static final int PRIORITY = 20_000;

    /** The key, and its variable, for messages. */
    static final String KEY = "exactly.request.deadline-ms (EXACTLY_REQUEST_DEADLINE_MS)";

    private final long deadlineMs;
    private final Duration idleTimeout;
    private final DatabaseFailures failures;
    private final String answer;
    private volatile boolean warnedNoContext;

    /** Constructor injection. */
    public RequestDeadlineFilter(RequestConfig config,
                                 @ConfigProperty(name = "quarkus.http.idle-timeout", defaultValue = "30M") Duration idleTimeout,
                                 DatabaseFailures failures, ObjectMapper mapper) throws JsonProcessingException {
        this.deadlineMs = config.deadlineMs();
        this.idleTimeout = idleTimeout;
        this.failures = failures;
        this.answer = mapper.writeValueAsString(ProblemMappers.DEADLINE);
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
        failures.failed(DatabaseFailures.Kind.DATABASE_TIMEOUT,
                new DeadlineExceededException(rc.request().method() + " " + rc.normalizedPath() + " had no answer by its deadline"));
        r.setStatusCode(503).putHeader("Content-Type", Problem.MEDIA_TYPE)
                .putHeader("Retry-After", Integer.toString(ProblemMappers.RETRY_AFTER_SECONDS)).end(answer);
    }
}
