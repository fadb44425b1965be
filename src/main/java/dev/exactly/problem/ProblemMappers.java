package dev.exactly.problem;

import dev.exactly.db.DatabaseErrors;
import dev.exactly.db.DeadlineExceededException;
import dev.exactly.db.NotMigratedException;
import dev.exactly.db.StoreTimeoutException;
import dev.exactly.db.StoreUnavailableException;
import dev.exactly.engine.PartitionNamedException;
import dev.exactly.engine.SpreadChangedException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * Turns every failure into an RFC 9457 problem details response. The requests answered 503 for
 * the database are counted and logged at most once a minute per kind ({@link DatabaseFailures}).
 */
public class ProblemMappers {

    private static final Logger LOG = Logger.getLogger(ProblemMappers.class);

    /** Seconds a client should wait before retrying while the database is away. */
    public static final int RETRY_AFTER_SECONDS = 2;

    private final DatabaseFailures failures;

    /** Constructor injection. */
    public ProblemMappers(DatabaseFailures failures) {
        this.failures = failures;
    }

    /** Adapter-raised problems, as they are. */
    @ServerExceptionMapper
    public Response apiProblem(ApiProblem p) {
        return respond(p.toProblem());
    }

    /**
     * The database is away: 503 with Retry-After; retrying the same request is safe. A database
     * this release has not been migrated for ({@link NotMigratedException}) answers the same
     * status and type, with a detail naming the step that fixes it.
     */
    @ServerExceptionMapper
    public Response unavailable(StoreUnavailableException e) {
        for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof NotMigratedException) {
                failures.failed(DatabaseFailures.Kind.UNAVAILABLE, e);
                return respond(NOT_MIGRATED);
            }
        }
        failures.failed(DatabaseFailures.Kind.UNAVAILABLE, e);
        return respond(UNAVAILABLE);
    }

    /**
     * A statement or lock timeout (one partition held too long, a runaway statement), or database
     * work that did not finish before the request's deadline: 503 with Retry-After and its own
     * problem type, so it is told apart from an outage. After a statement or lock timeout the
     * server rolled the request's statement back; after the deadline its statement was cancelled
     * and whether it took effect is unknown. Either way retrying the same request is safe.
     */
    @ServerExceptionMapper
    public Response timeout(StoreTimeoutException e) {
        failures.failed(DatabaseFailures.Kind.DATABASE_TIMEOUT, e);
        return respond(e instanceof DeadlineExceededException ? DEADLINE : TIMEOUT);
    }

    /** The answer while the schema is not migrated yet: names the step that makes it. */
    static final Problem NOT_MIGRATED = new Problem("/problems/unavailable", "Service unavailable", 503,
            NotMigratedException.ADVICE, null);

    /** The answer while the database is away. */
    public static final Problem UNAVAILABLE = new Problem("/problems/unavailable", "Service unavailable", 503,
            "The database is unavailable. Retrying the same request is safe.", null);

    /** The answer to a statement or lock timeout. */
    static final Problem TIMEOUT = new Problem("/problems/database-timeout", "Database timeout", 503,
            "The database did not finish in time (statement or lock timeout, e.g. a partition held "
                    + "busy); nothing of this request was written. Retrying the same request is safe.", null);

    /** The answer to a request whose database work did not finish before its deadline. */
    public static final Problem DEADLINE = new Problem("/problems/database-timeout", "Database timeout", 503,
            "The database did not finish before the request's deadline; the work was cancelled, and whether it took "
                    + "effect is unknown. Retrying the same request is safe: its answer is exact either way.", null);

    /** An item names a partition on a queue that spreads by key: 400 naming the item's partition; nothing written. */
    @ServerExceptionMapper
    public Response partitionNamed(PartitionNamedException e) {
        return apiProblem(ApiProblem.invalid(e.index(), "partition", e.getMessage()));
    }

    /**
     * A queue's spreadPartitions kept changing while the push was routed again: 503 with
     * Retry-After; nothing was written, retrying the same request is safe.
     */
    @ServerExceptionMapper
    public Response spreadChanged(SpreadChangedException e) {
        return Response.status(503).type(Problem.MEDIA_TYPE).header("Retry-After", RETRY_AFTER_SECONDS)
                .entity(new Problem("/problems/spread-changed", "Spread changed", 503,
                        e.getMessage() + ". Retrying the same request is safe.", null))
                .build();
    }

    /**
     * JAX-RS errors (unknown route, wrong method, unsupported media type, ...). A type keeps one
     * title wherever it is answered (RFC 9457, section 3.1.3: the title does not change from
     * occurrence to occurrence), so 404, 413 and 415 come from {@link ApiProblem}'s own; the
     * runtime's detail for a path no route has ("HTTP 404 Not Found", "Unable to find matching
     * target resource method") names the path instead. A 405 is dev.exactly.http.AllowedMethods'.
     */
    @ServerExceptionMapper
    public Response web(WebApplicationException e, UriInfo uri) { // uri: null outside a request
        int status = e.getResponse().getStatus();
        String detail = e.getMessage();
        switch (status) {
            case 404 -> {
                return apiProblem(ApiProblem.notFound(e instanceof jakarta.ws.rs.NotFoundException && runtimeDetail(detail)
                        ? (uri == null ? "No route has this path." : "No route has the path " + uri.getPath() + ".") : detail));
            }
            case 413 -> {
                return apiProblem(ApiProblem.tooLarge(detail));
            }
            case 415 -> {
                return apiProblem(ApiProblem.unsupportedMediaType(detail));
            }
            case 406 -> { // the runtime's own detail names its annotations
                return respond(new Problem("/problems/not-acceptable", "Not acceptable", 406, "The Accept header names no "
                        + "media type this endpoint answers with: it answers application/json, and application/problem+json "
                        + "for errors.", null));
            }
            default -> {
                String kind = status == 405 ? "method-not-allowed" : "http-" + status;
                return respond(new Problem("/problems/" + kind, e.getResponse().getStatusInfo().getReasonPhrase(), status,
                        detail, null));
            }
        }
    }

    /** Whether a 404's detail is the runtime's own wording for a path no route has. */
    static boolean runtimeDetail(String detail) {
        return detail == null || detail.equals("HTTP 404 Not Found")
                || detail.startsWith("Unable to find matching target resource method");
    }

    /**
     * Anything else: a 503 if the database is away, else a logged 500. A body over the outer HTTP
     * limit (quarkus.http.limits.max-body-size, read without a Content-Length) surfaces here as
     * IOException "Request too large" after the HTTP layer has already answered a bare 413; it is
     * not the database, so it maps to 413 too.
     */
    @ServerExceptionMapper
    public Response unexpected(Throwable t) {
        if (t instanceof java.io.IOException && "Request too large".equals(t.getMessage())) {
            return apiProblem(ApiProblem.tooLarge("the body is larger than the HTTP limit"));
        }
        Throwable classified = DatabaseErrors.classify(t);
        if (classified instanceof StoreTimeoutException timeout) {
            return timeout(timeout);
        }
        if (classified instanceof StoreUnavailableException unavailable) {
            return unavailable(unavailable);
        }
        LOG.error("unexpected failure", t);
        return respond(new Problem("/problems/internal", "Internal error", 500,
                "An unexpected error occurred.", null));
    }

    private static Response respond(Problem p) {
        Response.ResponseBuilder b = Response.status(p.status()).type(Problem.MEDIA_TYPE).entity(p);
        if (p.status() == 503) {
            b.header("Retry-After", RETRY_AFTER_SECONDS);
        }
        return b.build();
    }
}
