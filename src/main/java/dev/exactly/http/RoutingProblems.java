package dev.exactly.http;

import dev.exactly.problem.Problem;
import jakarta.ws.rs.NotAcceptableException;
import jakarta.ws.rs.NotAllowedException;
import jakarta.ws.rs.core.Request;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.util.Set;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * The routing refusals, as RFC 9457 problems in the API's own words: 405 with the {@code Allow}
 * header RFC 9110 (section 15.5.6) requires, and 406 saying what the API answers with (the
 * runtime's own messages name its annotations).
 */
public class RoutingProblems {

    private final AllowedMethods allowed;

    /** Constructor injection. */
    public RoutingProblems(AllowedMethods allowed) {
        this.allowed = allowed;
    }

    /** 405 method-not-allowed, with Allow listing what the path takes. */
    @ServerExceptionMapper
    public Response notAllowed(NotAllowedException e, UriInfo uri, Request request) {
        Set<String> methods = allowed.on(uri.getPath());
        String list = String.join(", ", methods);
        Response.ResponseBuilder b = Response.status(405).type(Problem.MEDIA_TYPE)
                .entity(new Problem("/problems/method-not-allowed", "Method not allowed", 405,
                        request.getMethod() + " is not allowed on " + uri.getPath()
                                + (methods.isEmpty() ? "" : "; it takes " + list + " (see the Allow header)"), null));
        if (!methods.isEmpty()) {
            b.header("Allow", list);
        }
        return b.build();
    }

    /** 406 not-acceptable: the Accept header names no type this API answers with. */
    @ServerExceptionMapper
    public Response notAcceptable(NotAcceptableException e) {
        return Response.status(406).type(Problem.MEDIA_TYPE)
                .entity(new Problem("/problems/not-acceptable", "Not acceptable", 406,
                        "The Accept header names no media type this endpoint answers with: it answers "
                                + "application/json, and application/problem+json for errors.", null))
                .build();
    }
}
