package dev.exactly.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.exactly.config.ExactlyConfig;
import dev.exactly.problem.ApiProblem;
import io.quarkus.runtime.configuration.MemorySize;
import io.quarkus.vertx.http.runtime.filters.Filters;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.impl.RoutingContextInternal;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.util.List;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Refuses a request whose body exceeds its route's limit with 413 problem+json naming the limit
 * and its key: with a Content-Length before the body is read, without one (chunked) as soon as the
 * bytes read pass the limit, quietly (nothing is logged: any client could otherwise fill the log).
 * A route's limit is the one a {@link RouteBodyLimit} bean gives for its path (tasks:
 * {@code exactly.tasks.max-body-bytes}; a webhook source: its {@code max-body-bytes}), else
 * {@code exactly.push.max-body-bytes} (push, transaction and every other route).
 */
@ApplicationScoped
public class BodyLimitFilter {

    private final RouteBodyLimit.Limit fallback;
    private final List<RouteBodyLimit> routes;
    private final long outerLimit;
    private final ObjectMapper mapper;

    /**
     * Constructor injection.
     *
     * @param outer the HTTP layer's own limit (quarkus.http.limits.max-body-size), which bounds every route's
     */
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
     * Registers the filter.
     *
     * @throws IllegalStateException at start-up when a route's limit is above quarkus.http.limits.max-body-size
     *                               (the HTTP layer would cut such a body with a bare 413 first)
     */
    void register(@Observes Filters filters) {
        checkAgainstOuterLimit();
        filters.register(rc -> {
            RouteBodyLimit.Limit limit = limitFor(rc.normalizedPath());
            String length = rc.request().getHeader("Content-Length");
            if (length != null) {
                if (tooLong(length, limit.maxBytes())) {
                    refuse(rc, limit);
                } else {
                    rc.next();
                }
            } else if (rc.request().headers().contains("Transfer-Encoding")) {
                readCounting(rc, limit);
            } else {
                rc.next();
            }
        }, 99); // after Quarkus Security's handlers (authorization: 100): no body is read before the key is checked
    }

    /** @throws IllegalStateException when a route's limit is above quarkus.http.limits.max-body-size */
    void checkAgainstOuterLimit() {
        RouteBodyLimit.Limit largest = fallback;
        for (RouteBodyLimit r : routes) {
            if (r.largest().maxBytes() > largest.maxBytes()) {
                largest = r.largest();
            }
        }
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
        for (RouteBodyLimit r : routes) {
            RouteBodyLimit.Limit l = r.limitFor(path);
            if (l != null) {
                return l;
            }
        }
        return fallback;
    }

    /** @return the route template of the group claiming the path, or null */
    private String uriTemplateFor(String path) {
        for (RouteBodyLimit r : routes) {
            if (r.limitFor(path) != null) {
                return r.uriTemplate();
            }
        }
        return null;
    }

    private void refuse(RoutingContext rc, RouteBodyLimit.Limit limit) {
        ApiProblem problem = limit.problem();
        limit.onRefused().accept(problem);
        String json;
        try {
            json = mapper.writeValueAsString(problem.toProblem());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        EarlyRefusal.send(rc, 413, json, uriTemplateFor(rc.normalizedPath()));
    }

    /**
     * Reads a body sent without a Content-Length (chunked) up to the limit and hands it on as the
     * routing context's body, which {@link ReadBodyHandOff} gives Quarkus REST as the entity stream
     * (Quarkus REST would otherwise read a body set this way as zeros past 10 KiB); one byte more
     * and the request is answered 413 problem+json (and its connection closed) without reading
     * further. Without this the HTTP layer would answer a bare 413 at
     * quarkus.http.limits.max-body-size and log the endpoint's failed answer as an error, once per
     * such request.
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

    private static boolean tooLong(String length, long maxBytes) {
        try {
            return Long.parseLong(length.trim()) > maxBytes;
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
