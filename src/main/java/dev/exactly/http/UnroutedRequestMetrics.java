package dev.exactly.http;

import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.impl.HttpServerRequestInternal;
import io.vertx.ext.web.RoutingContext;

/**
 * The {@code uri} tag of a request answered before it reaches a route (a filter's 401, 413 or
 * 415). Quarkus' Micrometer HTTP binder tags {@code http_server_requests} with the route template
 * Quarkus REST records on the request, else with the raw path; a request refused before routing
 * has no template, so any path a client sends would make a new series. Such a request gets a
 * template instead: its route's (e.g. {@code /webhooks/{source}}), or {@value #UNROUTED}.
 */
public final class UnroutedRequestMetrics {

    /** The tag of a refusal whose route gives no template. */
    public static final String UNROUTED = "/REFUSED_EARLY";

    /**
     * The request-context local under which Quarkus REST records a request's route template and
     * from which Quarkus' Micrometer HTTP binder reads it (quarkus-rest's ObservabilityUtil and
     * quarkus-micrometer's vertx HttpRequestMetric, Quarkus 3.33).
     */
    static final String URL_PATH_TEMPLATE = "UrlPathTemplate";

    private UnroutedRequestMetrics() {
    }

    /**
     * Records the template the request's metrics are tagged with; call it before the answer ends.
     *
     * @param rc          the request about to be answered
     * @param uriTemplate its route's template, or null for {@value #UNROUTED}
     */
    public static void tag(RoutingContext rc, String uriTemplate) {
        tag(rc.request(), uriTemplate);
    }

    /**
     * Records the template the request's metrics are tagged with; call it before the answer ends.
     *
     * @param http        the request about to be answered
     * @param uriTemplate its route's template, or null for {@value #UNROUTED}
     */
    public static void tag(HttpServerRequest http, String uriTemplate) {
        if (http instanceof HttpServerRequestInternal request) {
            request.context().putLocal(URL_PATH_TEMPLATE, uriTemplate == null ? UNROUTED : uriTemplate);
        }
    }
}
