package dev.exactly.http;

import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.RoutingContext;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import java.io.ByteArrayInputStream;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * Hands a request body that was already read at the Vert.x layer (a chunked body, read and counted
 * by {@link BodyLimitFilter}, which sets it as the routing context's body) to Quarkus REST as the
 * request's entity stream, before the endpoint's body parameter is read.
 *
 * <p>Without it, Quarkus REST (3.33) reads such a body through its input handler: the routing
 * context's body is offered as one piece, and a piece over {@code quarkus.rest.input-buffer-size}
 * (10 KiB by default) is copied out for a blocking read and then overwritten by an array of the
 * same length that nothing is copied into: the endpoint gets that many zero bytes (quarkusio/quarkus
 * issue 48777). With the entity stream set here, that handler leaves the body alone. A body
 * with a Content-Length is not read at the Vert.x layer and streams to the endpoint as usual.
 */
public class ReadBodyHandOff {

    /**
     * Sets the entity stream to the body already read, if there is one; otherwise does nothing.
     *
     * @param request the Jakarta REST request, after routing and before the body is read
     * @param rc      the Vert.x routing context of the same request
     */
    @ServerRequestFilter(priority = Priorities.ENTITY_CODER)
    public void handOn(ContainerRequestContext request, RoutingContext rc) {
        Buffer read = rc.body().buffer();
        if (read != null) {
            request.setEntityStream(new ByteArrayInputStream(read.getBytes()));
        }
    }
}
