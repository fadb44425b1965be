package dev.exactly.http;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.config.MeterFilter;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Keeps the {@code uri} tag of the {@code http.server.*} meters to the application's route
 * templates: any other value becomes {@value UnroutedRequestMetrics#UNROUTED}. Quarkus' Micrometer
 * HTTP binder tags a request with the template of the route that answered it, else with the path
 * as sent; a request the HTTP layer refuses itself, before any route or filter runs (a target it
 * cannot parse, a control byte in a header, Transfer-Encoding with Content-Length, CONNECT), would
 * make one series per path any client makes up, and fill the binder's cap on uri values
 * ({@code quarkus.micrometer.binder.http-server.max-uri-tags}) before the real routes get theirs.
 * Micrometer maps an id through every filter before any filter accepts or denies it, so the cap
 * counts the mapped values.
 */
@Singleton
public class RouteUriTag {

    private final AllowedMethods routes;

    /** Constructor injection. */
    public RouteUriTag(AllowedMethods routes) {
        this.routes = routes;
    }

    /** @return the filter Quarkus applies to the meter registries */
    @Produces
    @Singleton
    MeterFilter routeTemplatesOnly() {
        return filter(routes::templates);
    }

    /**
     * @param templates the route templates, asked for once, when the first HTTP meter is made
     * @return a filter that keeps those uri values (and {@value UnroutedRequestMetrics#UNROUTED}) and maps any other
     */
    static MeterFilter filter(Supplier<Set<String>> templates) {
        return new MeterFilter() {
            private volatile Set<String> known;

            @Override
            public Meter.Id map(Meter.Id id) {
                if (!id.getName().startsWith("http.server.")) {
                    return id;
                }
                Set<String> k = known;
                if (k == null) {
                    k = new HashSet<>(templates.get());
                    k.add(UnroutedRequestMetrics.UNROUTED);
                    known = k = Set.copyOf(k);
                }
                return tagged(id, k);
            }
        };
    }

    /** @return the id with a uri tag not among the known ones replaced by {@value UnroutedRequestMetrics#UNROUTED} */
    static Meter.Id tagged(Meter.Id id, Set<String> known) {
        String uri = id.getTag("uri");
        if (uri == null || known.contains(uri)) {
            return id;
        }
        List<Tag> tags = id.getTags().stream()
                .map(t -> "uri".equals(t.getKey()) ? Tag.of("uri", UnroutedRequestMetrics.UNROUTED) : t)
                .collect(Collectors.toList());
        return id.replaceTags(tags);
    }
}
