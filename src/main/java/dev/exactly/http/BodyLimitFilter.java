package dev.exactly.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.exactly.config.ExactlyConfig;
import dev.exactly.problem.ApiProblem;
import dev.exactly.problem.Problem;
import io.quarkus.runtime.configuration.MemorySize;
import io.quarkus.vertx.http.runtime.filters.Filters;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.impl.RoutingContextInternal;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import java.io.ByteArrayInputStream;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * Refuses a body before it is read, which Quarkus cannot: its HTTP layer has one body limit for
 * every route ({@code quarkus.http.limits.max-body-size}, answered with a bare 413 and an error in
 * the log), and it can decompress a body but not refuse one.
 *
 * <p>A body over its route's limit is answered 413 problem+json naming the limit and its key: with
 * a Content-Length before the body is read, without one (chunked) as soon as the bytes
 * read pass the limit, quietly (nothing is logged: any client could otherwise fill the log). A route's limit
 * is the one a {@link RouteBodyLimit} bean gives for its path (tasks: {@code exactly.tasks.max-body-bytes};
 * a webhook source: its {@code max-body-bytes}), else {@code exactly.push.max-body-bytes}.
 *
 * <p>A body sent with a Content-Encoding other than {@code identity} (RFC 9110 section 8.4: gzip,
 * br, …; every Content-Encoding header counts) is answered 415 problem+json on the API and the
 * webhook routes: the API reads bodies as they arrive, and a webhook's stored payload would
 * otherwise be compressed bytes that nothing marks as such.
 *
 * <p>Either answer closes the connection, since the unread body would otherwise have to be drained,
 * and is tagged for the metrics with its route's template, never the raw path ({@link UnroutedRequestMetrics}).
 */
@ApplicationScoped
public class BodyLimitFilter {

    private final RouteBodyLimit.Limit fallback;
    private final List<RouteBodyLimit> routes;
    private final long outerLimit;
    private final ObjectMapper mapper;

    /** Constructor injection; {@code outer} is the HTTP layer's own limit, which bounds every route's. */
    @Inject
    public BodyLimitFilter(ExactlyConfig config, Instance<RouteBodyLimit> routes, ObjectMapper mapper,
                           @ConfigProperty(name = "quarkus.http.limits.max-body-size") MemorySize outer) {
        this(config.push().maxBodyBytes(), routes.stream().toList(), mapper, outer.asLongValue());
    }

    /**
     * @param pushMaxBytes exactly.push.max-body-bytes, the limit of every route no group claims
     * @param routes       the route groups with limits of their own
     * @param mapper       writes the problem documents
     * @param outerLimit   quarkus.http.limits.max-body-size, in bytes
     */
    BodyLimitFilter(long pushMaxBytes, List<RouteBodyLimit> routes, ObjectMapper mapper, long outerLimit) {
        this.fallback = RouteBodyLimit.Limit.of(pushMaxBytes, "exactly.push.max-body-bytes");
        this.routes = List.copyOf(routes);
        this.outerLimit = outerLimit;
        this.mapper = mapper;
    }

    /**
     * Registers the filter, before the routes and after the header repairs ({@link FieldLines}).
     *
     * @throws IllegalStateException at start-up when a route's limit is above quarkus.http.limits.max-body-size
     *                               (the HTTP layer would cut such a body with a bare 413 first)
     */
    void register(@Observes Filters filters) {
        checkAgainstOuterLimit();
        filters.register(rc -> {
            String path = rc.normalizedPath();
            RouteBodyLimit.Limit limit = limitFor(path);
            String length = rc.request().getHeader("Content-Length");
            if (length != null && tooLong(length, limit.maxBytes())) {
                refuse(rc, limit);
            } else if (rc.request().headers().contains("Content-Encoding") && (path.startsWith("/api/") || path.startsWith("/webhooks/"))
                    && !rc.request().headers().getAll("Content-Encoding").stream().allMatch(BodyLimitFilter::isIdentity)) {
                send(rc, 415, ApiProblem.unsupportedMediaType("Content-Encoding is not supported: send the body uncompressed"),
                        null);
            } else if (length == null && mayHaveBody(rc.request().method())) {
                readCounting(rc, limit); // chunked (the server speaks HTTP/1.1 only: application.properties)
            } else {
                rc.next();
            }
        }, 99); // after Quarkus Security's handlers (authorization: 100): no body is read before the key is checked
    }

    /** @throws IllegalStateException when a route's limit is above quarkus.http.limits.max-body-size */
    void checkAgainstOuterLimit() {
        RouteBodyLimit.Limit largest = Stream.concat(Stream.of(fallback), routes.stream().map(RouteBodyLimit::largest))
                .max(Comparator.comparingLong(RouteBodyLimit.Limit::maxBytes)).orElseThrow();
        if (largest.maxBytes() > outerLimit) {
            throw new IllegalStateException(largest.key() + " (" + largest.maxBytes()
                    + " bytes) is above quarkus.http.limits.max-body-size (" + outerLimit + " bytes): raise that too");
        }
    }

    /**
     * @param path a normalized request path
     * @return the body limit of the route at that path
     */
    RouteBodyLimit.Limit limitFor(String path) {
        return routes.stream().map(r -> r.limitFor(path)).filter(Objects::nonNull).findFirst().orElse(fallback);
    }

    /** @return true when every listed coding is "identity" (or the header is blank) */
    static boolean isIdentity(String header) {
        return Arrays.stream(header.split(",")).map(String::trim).allMatch(c -> c.isEmpty() || c.equalsIgnoreCase("identity"));
    }

    /**
     * Hands a body already read here (chunked, counted by {@link #readCounting}) to Quarkus REST as
     * the request's entity stream, before the endpoint's body parameter is read. Without it, Quarkus
     * REST (3.33) offers such a body to its input handler as one piece, and a piece over
     * {@code quarkus.rest.input-buffer-size} (10 KiB by default) reaches the endpoint as that many
     * zero bytes (quarkusio/quarkus issue 48777). A body with a Content-Length streams as usual.
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

    private void refuse(RoutingContext rc, RouteBodyLimit.Limit limit) {
        ApiProblem problem = limit.problem();
        limit.onRefused().accept(problem);
        send(rc, 413, problem, routes.stream().filter(r -> r.limitFor(rc.normalizedPath()) != null)
                .findFirst().map(RouteBodyLimit::uriTemplate).orElse(null));
    }

    /** Answers with the problem and closes the connection; tags the metrics with {@code uriTemplate} (null: unrouted). */
    private void send(RoutingContext rc, int status, ApiProblem problem, String uriTemplate) {
        String json;
        try {
            json = mapper.writeValueAsString(problem.toProblem());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        UnroutedRequestMetrics.tag(rc, uriTemplate);
        rc.response().setStatusCode(status).putHeader("Content-Type", Problem.MEDIA_TYPE)
                .putHeader("Connection", "close").end(json);
    }

    /**
     * Reads a body sent without a Content-Length (chunked) up to the limit and hands it on as the
     * routing context's body ({@link #handOn}); one byte more and the request is answered 413
     * problem+json without reading further.
     */
    private void readCounting(RoutingContext rc, RouteBodyLimit.Limit limit) {
        HttpServerRequest request = rc.request();
        Buffer body = Buffer.buffer();
        boolean[] refused = {false};
        request.handler(chunk -> {
            if (refused[0]) {
                return;
            }
            if (body.length() + (long) chunk.length() > limit.maxBytes()) {
                refused[0] = true;
                refuse(rc, limit);
                return;
            }
            body.appendBuffer(chunk);
        });
        request.endHandler(end -> {
            if (!refused[0]) {
                ((RoutingContextInternal) rc).setBody(body);
                rc.next();
            }
        });
        request.exceptionHandler(e -> {
            if (!refused[0] && !rc.response().ended()) {
                rc.fail(e);
            }
        });
        if ("100-continue".equalsIgnoreCase(request.getHeader("Expect"))) {
            rc.response().writeContinue();
        }
        request.resume();
    }

    private static boolean mayHaveBody(HttpMethod method) {
        return method != HttpMethod.GET && method != HttpMethod.HEAD && method != HttpMethod.OPTIONS;
    }

    private static boolean tooLong(String length, long maxBytes) {
        try {
            return Long.parseLong(length.trim()) > maxBytes;
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
