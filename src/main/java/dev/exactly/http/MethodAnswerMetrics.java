package dev.exactly.http;

import io.vertx.core.http.HttpServerRequest;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import org.jboss.resteasy.reactive.server.ServerResponseFilter;

/**
 * The {@code uri} tag of answers no resource method gave: an OPTIONS answer and a 405. Quarkus
 * REST records a route's template for the metrics only when a resource method runs, so these were
 * tagged with the raw path, and every id or queue name a client sent made a new series of
 * {@code http_server_requests}. They are tagged with the template of the route that has the path
 * ({@link AllowedMethods#templateOf}), else {@value UnroutedRequestMetrics#UNROUTED}.
 */
public class MethodAnswerMetrics {

    private final AllowedMethods allowed;

    /** Constructor injection. */
    public MethodAnswerMetrics(AllowedMethods allowed) {
        this.allowed = allowed;
    }

    /** Tags an OPTIONS or 405 answer with its route's template (other answers pass untouched). */
    @ServerResponseFilter
    public void tag(ContainerRequestContext request, ContainerResponseContext response, HttpServerRequest http) {
        if (response.getStatus() == 405 || HttpMethod.OPTIONS.equals(request.getMethod())) {
            UnroutedRequestMetrics.tag(http, allowed.templateOf(request.getUriInfo().getPath()));
        }
    }
}
