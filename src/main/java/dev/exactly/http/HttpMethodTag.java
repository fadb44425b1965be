package dev.exactly.http;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.config.MeterFilter;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Caps the {@code method} tag of {@code http_server_requests} to the methods of RFC 9110
 * (section 9) and PATCH (RFC 5789): any other name a client sends (the HTTP server takes any
 * token as a method, and answers it 405) is tagged {@value #OTHER}, so it cannot make a series
 * of its own.
 */
@Singleton
public class HttpMethodTag {

    /** The tag value of a method outside {@link #KNOWN}. */
    public static final String OTHER = "OTHER";

    /** The methods tagged by name. */
    static final Set<String> KNOWN = Set.of("GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH");

    /** @return the filter Quarkus applies to the meter registries */
    @Produces
    @Singleton
    MeterFilter knownMethodsOnly() {
        return new MeterFilter() {
            @Override
            public Meter.Id map(Meter.Id id) {
                return id.getName().startsWith("http.server.requests") ? capped(id) : id;
            }
        };
    }

    /** @return the id with its method tag capped to {@link #KNOWN} */
    static Meter.Id capped(Meter.Id id) {
        String method = id.getTag("method");
        if (method == null || KNOWN.contains(method)) {
            return id;
        }
        List<Tag> tags = id.getTags().stream()
                .map(t -> "method".equals(t.getKey()) ? Tag.of("method", OTHER) : t)
                .collect(Collectors.toList());
        return id.replaceTags(tags);
    }
}
