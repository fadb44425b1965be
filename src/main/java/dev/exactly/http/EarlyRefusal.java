package dev.exactly.http;

import dev.exactly.problem.Problem;
import io.vertx.ext.web.RoutingContext;

/** Ends a request before its body is read, with a problem+json answer (RFC 9457). */
final class EarlyRefusal {

    private EarlyRefusal() {
    }

    /**
     * Answers {@code status} with {@code problemJson} and closes the connection, since the unread
     * body would otherwise have to be drained first. The request's metrics are tagged with
     * {@code uriTemplate}, never the raw path ({@link UnroutedRequestMetrics}).
     *
     * @param uriTemplate the route's template (e.g. {@code /webhooks/{source}}), or null for
     *                    {@value UnroutedRequestMetrics#UNROUTED}
     */
    static void send(RoutingContext rc, int status, String problemJson, String uriTemplate) {
        UnroutedRequestMetrics.tag(rc, uriTemplate);
        rc.response().setStatusCode(status).putHeader("Content-Type", Problem.MEDIA_TYPE)
                .putHeader("Connection", "close").end(problemJson);
    }
}
