package dev.exactly.http;

import dev.exactly.problem.ApiProblem;
import dev.exactly.problem.Problem;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.core.MediaType;
import java.lang.annotation.Annotation;
import java.util.Set;
import org.jboss.resteasy.reactive.server.ServerResponseFilter;

/**
 * The answer to OPTIONS, from the same table a 405 uses ({@link AllowedMethods}). The runtime's
 * own OPTIONS answer offers HEAD on every path, also on POST-only routes such as
 * {@code /api/v1/push}, where a HEAD then gets 405, and answers 200 on a path no route has.
 * RFC 9110 (section 9.3.7) has OPTIONS describe what the target resource supports, so a known
 * path gets the Allow list a 405 gives, and an unknown one the 404 problem any other method gets.
 */
public class OptionsAllow {

    private static final MediaType PROBLEM = MediaType.valueOf(Problem.MEDIA_TYPE);

    private final AllowedMethods allowed;

    /** Constructor injection. */
    public OptionsAllow(AllowedMethods allowed) {
        this.allowed = allowed;
    }

    /** Rewrites an OPTIONS answer (other answers pass untouched). */
    @ServerResponseFilter
    public void allow(ContainerRequestContext request, ContainerResponseContext response) {
        if (!HttpMethod.OPTIONS.equals(request.getMethod())) {
            return;
        }
        String path = request.getUriInfo().getPath();
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
