package dev.exactly.http;

import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import java.util.Set;
import org.jboss.resteasy.reactive.server.ServerResponseFilter;

/**
 * The {@code Allow} header of an OPTIONS answer, from the same table a 405 uses
 * ({@link AllowedMethods}): the runtime's own OPTIONS answer offers HEAD on every path, also on
 * POST-only routes such as {@code /api/v1/push}, where a HEAD then gets 405. RFC 9110 (section
 * 9.3.7) has OPTIONS describe what the target resource supports, so both answers now agree.
 */
public class OptionsAllow {

    private final AllowedMethods allowed;

    /** Constructor injection. */
    public OptionsAllow(AllowedMethods allowed) {
        this.allowed = allowed;
    }

    /** Replaces the Allow header of an OPTIONS answer on a known path (other answers pass untouched). */
    @ServerResponseFilter
    public void allow(ContainerRequestContext request, ContainerResponseContext response) {
        if (!HttpMethod.OPTIONS.equals(request.getMethod())) {
            return;
        }
        Set<String> methods = allowed.on(request.getUriInfo().getPath());
        if (!methods.isEmpty()) {
            response.getHeaders().putSingle("Allow", String.join(", ", methods));
        }
    }
}
