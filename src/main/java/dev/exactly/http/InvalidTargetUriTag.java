package dev.exactly.http;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.config.MeterFilter;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Tags an HTTP request whose target the server refuses to parse (a character RFC 3986 does not
 * allow in a path, such as a backslash or a space) {@code uri="}{@value UnroutedRequestMetrics#UNROUTED}{@code "}
 * in the {@code http.server.*} meters. The HTTP layer answers such a request 400 itself, before any
 * route or filter, and Micrometer would tag it with the path as sent: one series per spelling any
 * client can make up. A path of RFC 3986 characters (and a route template's braces) keeps its tag.
 */
@Singleton
public class InvalidTargetUriTag {

    /** RFC 3986 path characters: unreserved, percent-encoded, sub-delims, ':', '@', '/'; plus a template's braces. */
    static final Pattern PATH = Pattern.compile("[A-Za-z0-9._~%!$&'()*+,;=:@/{}-]*");

    /** @return the filter Quarkus applies to the meter registries */
    @Produces
    @Singleton
    MeterFilter unparsableTargetsUnrouted() {
        return new MeterFilter() {
            @Override
            public Meter.Id map(Meter.Id id) {
                return id.getName().startsWith("http.server.") ? tagged(id) : id;
            }
        };
    }

    /** @return the id with a uri tag outside RFC 3986's path characters replaced by {@value UnroutedRequestMetrics#UNROUTED} */
    static Meter.Id tagged(Meter.Id id) {
        String uri = id.getTag("uri");
        if (uri == null || PATH.matcher(uri).matches()) {
            return id;
        }
        List<Tag> tags = id.getTags().stream()
                .map(t -> "uri".equals(t.getKey()) ? Tag.of("uri", UnroutedRequestMetrics.UNROUTED) : t)
                .collect(Collectors.toList());
        return id.replaceTags(tags);
    }
}
