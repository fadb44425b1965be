package dev.exactly.http;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.config.MeterFilter;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.impl.HttpServerRequestInternal;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.util.HashSet;
import java.util.Set;

/**
 * Keeps the {@code uri} and {@code method} tags of the {@code http.server.*} meters to a known set,
 * so that no client can make a series of its own. Quarkus' Micrometer HTTP binder tags a request
 * with the route template Quarkus REST records on it, else with the path as sent, and with any
 * token a client sends as a method (the HTTP server answers it 405). So:
 * <ul>
 *   <li>a request answered before routing (a filter's 401, 413 or 415) is tagged with its route's
 *       template ({@link #tag}, e.g. {@code /webhooks/{source}}), or {@value #UNROUTED};</li>
 *   <li>any {@code uri} that is not a route template (a request the HTTP layer refuses itself, before
 *       any route or filter runs: a target it cannot parse, a control byte in a header, CONNECT)
 *       becomes {@value #UNROUTED}, so it cannot fill the binder's cap on uri values
 *       ({@code quarkus.micrometer.binder.http-server.max-uri-tags}; Micrometer maps an id through
 *       every filter before any accepts or denies it, so the cap counts the mapped values);</li>
 *   <li>a method outside RFC 9110 (section 9) and PATCH (RFC 5789) becomes {@value #OTHER}.</li>
 * </ul>
 */
@Singleton
public class UnroutedRequestMetrics {

    /** The tag of a refusal whose route gives no template. */
    public static final String UNROUTED = "/REFUSED_EARLY";
    /** The tag value of a method outside {@link #METHODS}. */
    public static final String OTHER = "OTHER";
    /** The methods tagged by name. */
    static final Set<String> METHODS = Set.of("GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH");

    /**
     * The request-context local under which Quarkus REST records a request's route template and
     * from which Quarkus' Micrometer HTTP binder reads it (quarkus-rest's ObservabilityUtil and
     * quarkus-micrometer's vertx HttpRequestMetric, Quarkus 3.33).
     */
    static final String URL_PATH_TEMPLATE = "UrlPathTemplate";

    private final AllowedMethods routes;

    /** Constructor injection. */
    public UnroutedRequestMetrics(AllowedMethods routes) {
        this.routes = routes;
    }

    /** @return the filter Quarkus applies to the meter registries; it reads the route templates at the first HTTP meter */
    @Produces
    @Singleton
    MeterFilter knownTagsOnly() {
        return new MeterFilter() {
            private volatile Set<String> templates;

            @Override
            public Meter.Id map(Meter.Id id) {
                if (!id.getName().startsWith("http.server.")) {
                    return id;
                }
                if (templates == null) {
                    Set<String> t = new HashSet<>(routes.templates());
                    t.add(UNROUTED);
                    templates = Set.copyOf(t);
                }
                return capped(capped(id, "uri", templates, UNROUTED), "method", METHODS, OTHER);
            }
        };
    }

    /** @return the id with its tag {@code key}, when not among {@code known}, replaced by {@code other} */
    static Meter.Id capped(Meter.Id id, String key, Set<String> known, String other) {
        String value = id.getTag(key);
        return value == null || known.contains(value) ? id
                : id.replaceTags(id.getTags().stream().map(t -> key.equals(t.getKey()) ? Tag.of(key, other) : t).toList());
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
