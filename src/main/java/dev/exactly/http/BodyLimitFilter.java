package dev.exactly.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.exactly.config.ExactlyConfig;
import dev.exactly.problem.ApiProblem;
import io.quarkus.vertx.http.runtime.filters.Filters;
import jakarta.enterprise.context.ApplicationScoped;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.impl.RoutingContextInternal;
import jakarta.enterprise.event.Observes;

/**
 * Refuses a request whose body exceeds exactly.push.max-body-bytes with 413 problem+json: with a
 * Content-Length before the body is read, without one (chunked) as soon as the bytes read pass the
 * limit, quietly (nothing is logged: any client could otherwise fill the log).
 */
@ApplicationScoped
public class BodyLimitFilter {

    private final long maxBytes;
    private final String problem;

    /** Constructor injection. */
    public BodyLimitFilter(ExactlyConfig config, ObjectMapper mapper) throws JsonProcessingException {
        this.maxBytes = config.push().maxBodyBytes();
        this.problem = mapper.writeValueAsString(ApiProblem.tooLarge(
                "the body is larger than the limit of " + maxBytes + " bytes").toProblem());
    }

    void register(@Observes Filters filters) {
        filters.register(rc -> {
            String length = rc.request().getHeader("Content-Length");
            if (length != null) {
                if (tooLong(length)) {
                    EarlyRefusal.send(rc, 413, problem);
                } else {
                    rc.next();
                }
            } else if (rc.request().headers().contains("Transfer-Encoding")) {
                readCounting(rc);
            } else {
                rc.next();
            }
        }, 100);
    }

    /**
     * Reads a body sent without a Content-Length (chunked) up to the limit and hands it on as the
     * request's body; one byte more and the request is answered 413 problem+json (and its
     * connection closed) without reading further. Without this the HTTP layer would answer a bare
     * 413 at quarkus.http.limits.max-body-size and log the endpoint's failed answer as an error,
     * once per such request.
     */
    private void readCounting(RoutingContext rc) {
        HttpServerRequest request = rc.request();
        Buffer body = Buffer.buffer();
        boolean[] refused = {false};
        request.handler(chunk -> {
            if (refused[0]) {
                return;
            }
            if (body.length() + (long) chunk.length() > maxBytes) {
                refused[0] = true;
                EarlyRefusal.send(rc, 413, problem);
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

    private boolean tooLong(String length) {
        try {
            return Long.parseLong(length.trim()) > maxBytes;
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
