package dev.exactly.auth;

import dev.exactly.http.UnroutedRequestMetrics;
import dev.exactly.problem.Problem;
import io.quarkus.security.ForbiddenException;
import io.quarkus.vertx.http.runtime.security.HttpSecurityRecorder.DefaultAuthFailureHandler;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * The answers of requests refused before any endpoint ran, other than the 401 of a missing or
 * wrong key ({@link ApiKeyAuthenticationMechanism}):
 * <ul>
 * <li>403 as an RFC 9457 problem ({@code /problems/forbidden}) where Quarkus Security would answer
 * an empty 403: a request with a valid API key to a path no permission opens (the HTTP
 * permissions deny every path they do not name), and a JAX-RS endpoint that carries no security
 * annotation ({@code quarkus.security.jaxrs.deny-unannotated-endpoints});</li>
 * <li>a request target with no path (only a query, {@code ?x}), which the router fails with an
 * exception Quarkus would log as an ERROR: a bare 400, as the HTTP layer answers any other target
 * it cannot parse, and not logged;</li>
 * <li>the router's own refusals (400 for a request target it cannot route, such as one with a
 * backslash) keep their answer but are tagged {@value UnroutedRequestMetrics#UNROUTED} in the HTTP
 * metrics: Micrometer would tag them with the path as sent, one series per spelling any client
 * can make up.</li>
 * </ul>
 */
@ApplicationScoped
public class RefusedRequests {

    /** The problem document of every 403. */
    static final String FORBIDDEN = "{\"type\":\"/problems/forbidden\",\"title\":\"Forbidden\",\"status\":403,"
            + "\"detail\":\"The API key is valid, but no endpoint at this path is open to it.\"}";

    /** Before every other failure handler of the router. */
    static final int ORDER = Integer.MIN_VALUE + 2;

    void register(@Observes Router router) {
        router.route().order(ORDER).failureHandler(this::handle);
    }

    private void handle(RoutingContext rc) {
        if (rc.response().ended()) {
            rc.next();
            return;
        }
        if (DefaultAuthFailureHandler.extractRootCause(rc.failure()) instanceof ForbiddenException) {
            UnroutedRequestMetrics.tag(rc, null);
            rc.response().setStatusCode(403).putHeader(HttpHeaders.CONTENT_TYPE, Problem.MEDIA_TYPE);
            Refusals.end(rc, FORBIDDEN);
            return;
        }
        String path = rc.request().path();
        if (rc.statusCode() == 400 && (path == null || !path.startsWith("/"))) {
            UnroutedRequestMetrics.tag(rc, null);
            rc.response().setStatusCode(400);
            Refusals.end(rc, "");
            return;
        }
        if (rc.statusCode() >= 400 && rc.statusCode() < 500) {
            UnroutedRequestMetrics.tag(rc, null);
        }
        rc.next();
    }

    /** A JAX-RS endpoint refused its caller (it carries no security annotation). */
    @ServerExceptionMapper
    public Response forbidden(ForbiddenException e) {
        return Response.status(403).type(Problem.MEDIA_TYPE).entity(FORBIDDEN).build();
    }
}
