package dev.exactly.http;

import dev.exactly.problem.ApiProblem;
import dev.exactly.problem.Problem;
import io.vertx.core.http.HttpServerRequest;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.core.MediaType;
import java.lang.annotation.Annotation;
import java.util.Set;
import org.jboss.resteasy.reactive.server.ServerResponseFilter;

/**
 * The answers no resource method gives, an OPTIONS and a 405, from the table of what each path
 * takes ({@link AllowedMethods}).
 *
 * <p>OPTIONS: the runtime's own answer offers HEAD on every path, also on POST-only routes such as
 * {@code /api/v1/push}, where a HEAD then gets 405, and answers 200 on a path no route has.
 * RFC 9110 (section 9.3.7) has OPTIONS describe what the target resource supports, so a known
 * path gets the Allow list a 405 gives, and an unknown one the 404 problem any other method gets.
 *
 * <p>Metrics: Quarkus REST records a route's template for {@code http_server_requests} only when a
 * resource method runs, so both answers were tagged with the raw path, and every id or queue name
 * a client sent made a new series. They are tagged with the template of the route that has the
 * path ({@link AllowedMethods#templateOf}), else {@value UnroutedRequestMetrics#UNROUTED}.
 */
public class MethodAnswers {

    private static final MediaType PROBLEM = MediaType.valueOf(Problem.MEDIA_TYPE);

    private final AllowedMethods allowed;

    /** Constructor injection. */
    public MethodAnswers(AllowedMethods allowed) {
        this.allowed = allowed;
    }

    /** Rewrites an OPTIONS answer and tags it, or a 405, with its route (other answers pass untouched). */
    @ServerResponseFilter
    public void answer(ContainerRequestContext request, ContainerResponseContext response, HttpServerRequest http) {
        boolean options = HttpMethod.OPTIONS.equals(request.getMethod());
        if (!options && response.getStatus() != 405) {
            return;
        }
        String path = request.getUriInfo().getPath();
        UnroutedRequestMetrics.tag(http, allowed.templateOf(path));
        if (!options) {
            return;
        }
        Set<String> methods = allowed.on(path);
        if (methods.isEmpty()) {
            response.getHeaders().remove("Allow");
            response.setStatus(404);
            response.setEntity(ApiProblem.notFound("No route has the path " + path + ".").toProblem(),
                    new Annotation[0], PROBLEM);
        } else {
            response.getHeaders().putSingle("Allow", String.join(", ", methods));
        }
    }
}
