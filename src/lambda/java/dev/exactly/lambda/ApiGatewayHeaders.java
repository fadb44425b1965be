package dev.exactly.lambda;

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPEvent;
import io.quarkus.vertx.http.runtime.QuarkusHttpHeaders;
import io.quarkus.vertx.http.runtime.filters.Filters;
import io.vertx.core.MultiMap;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.Map;

/**
 * Gives every route the request headers of an API Gateway HTTP API (payload format 2.0) event
 * exactly as the event carries them. The Lambda HTTP adapter splits each header value on commas
 * into several values (Quarkus' LambdaHttpHandler), so {@code Stripe-Signature: t=1,v1=ab} would
 * reach the application as two values {@code t=1} and {@code v1=ab}, and a reader of the first
 * value would see only {@code t=1}. This filter runs before every other one and replaces each
 * header named in the event by the event's value, byte for byte. API Gateway itself joins a
 * header sent several times into one comma-separated value (AWS documentation, "Working with AWS
 * Lambda proxy integrations for HTTP APIs"), which RFC 9110 section 5.3 defines as equivalent to
 * the repeated field lines; that value is kept whole as well. The v2 {@code cookies} array is
 * joined by the adapter into one {@code Cookie} header with "; " (RFC 6265 section 5.4) and the
 * raw query string is passed unchanged, so repeated query parameters keep their order; neither
 * needs a repair. Requests that did not come from an event (none in the Lambda shape) are left
 * alone.
 */
@ApplicationScoped
public class ApiGatewayHeaders {

    /** Above every other filter of the application (the highest runs first). */
    static final int PRIORITY = 10_000;

    void register(@Observes Filters filters) {
        filters.register(rc -> {
            restore(rc.request().headers());
            rc.next();
        }, PRIORITY);
    }

    /**
     * Replaces the adapter's split header values by the values of the event the request was built
     * from.
     *
     * @param headers the request headers; only {@link QuarkusHttpHeaders} carry the event
     */
    static void restore(MultiMap headers) {
        if (!(headers instanceof QuarkusHttpHeaders quarkus)) {
            return;
        }
        APIGatewayV2HTTPEvent event = quarkus.getContextObject(APIGatewayV2HTTPEvent.class);
        if (event == null || event.getHeaders() == null) {
            return;
        }
        for (Map.Entry<String, String> h : event.getHeaders().entrySet()) {
            if (h.getKey() != null && h.getValue() != null) {
                headers.set(h.getKey(), h.getValue());
            }
        }
    }
}
