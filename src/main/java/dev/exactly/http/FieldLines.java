package dev.exactly.http;

import io.quarkus.vertx.http.runtime.filters.Filters;
import io.vertx.core.MultiMap;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.List;

/**
 * One rule for a request header sent on several field lines, the same in both shapes: every
 * route (API key check, push API, webhook verifiers and key extractors, kept headers) sees one
 * value per header name, the lines' values joined in arrival order by {@code ","} with no space.
 * That is the combination RFC 9110 section 5.3 allows a recipient to make (a comma and optional
 * whitespace; it does not change the field's meaning), and byte for byte what API Gateway HTTP
 * APIs hand a Lambda function in a payload format 2.0 event (AWS documentation, "Create AWS
 * Lambda proxy integrations for HTTP APIs": duplicate headers are combined with commas, e.g.
 * {@code "header2": "value1,value2"}), which the function cannot split again. So a delivery
 * whose {@code X-GitHub-Delivery} arrives twice has the key {@code a,b} in either shape, and a
 * signature header sent twice is verified as the one combined value (a Stripe-Signature's
 * elements from both lines count; a GitHub signature so combined matches nothing: 401).
 *
 * <p>Two exceptions: {@code Cookie} lines are joined by {@code "; "} (RFC 6265 section 5.4, RFC
 * 9113 section 8.2.3), as the Lambda adapter joins an event's {@code cookies}; {@code Set-Cookie}
 * is never combined (RFC 9110 section 5.3 names it as the field that cannot be; it is a response
 * field and no route reads it).
 *
 * <p>Runs as a Vert.x filter just after {@code ApiGatewayHeaders} (Lambda shape) and before every
 * other filter.
 */
@ApplicationScoped
public class FieldLines {

    /** Below the Lambda shape's ApiGatewayHeaders (10000), above every other filter. */
    static final int PRIORITY = 9_000;

    void register(@Observes Filters filters) {
        filters.register(rc -> {
            combine(rc.request().headers());
            rc.next();
        }, PRIORITY);
    }

    /**
     * Replaces, in place, every header given on several lines by its one combined value.
     *
     * @param headers request headers (Vert.x: case-insensitive names, values in arrival order)
     */
    public static void combine(MultiMap headers) {
        for (String name : headers.names()) { // a copy, one entry per case-insensitive name
            List<String> values = headers.getAll(name);
            if (values.size() > 1 && !"Set-Cookie".equalsIgnoreCase(name)) {
                headers.set(name, combined(name, values));
            }
        }
    }

    /**
     * The value a header sent on these lines has under this rule.
     *
     * @param name   the header name (case-insensitive)
     * @param values its lines' values in arrival order, at least one
     * @return the values joined by {@code ","} ({@code "; "} for Cookie); a single value unchanged
     */
    public static String combined(String name, List<String> values) {
        if (values.size() == 1) {
            return values.get(0);
        }
        return String.join("Cookie".equalsIgnoreCase(name) ? "; " : ",", values);
    }
}
