package dev.exactly.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.exactly.problem.ApiProblem;
import io.quarkus.vertx.http.runtime.filters.Filters;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * Refuses a request body sent with a Content-Encoding other than {@code identity} (RFC 9110
 * section 8.4: gzip, br, …; every Content-Encoding header counts) with 415 problem+json before it
 * is read, on the API and the webhook endpoints (a webhook's stored payload would otherwise be
 * compressed bytes that nothing marks as such). The API reads bodies as they
 * arrive; without this, a compressed body would be refused as malformed UTF-8, and a plain body
 * labelled compressed would be accepted as if the label were not there.
 */
@ApplicationScoped
public class ContentEncodingFilter {

    private final String problem;

    /** Constructor injection. */
    public ContentEncodingFilter(ObjectMapper mapper) throws JsonProcessingException {
        this.problem = mapper.writeValueAsString(ApiProblem.unsupportedMediaType(
                "Content-Encoding is not supported: send the body uncompressed").toProblem());
    }

    void register(@Observes Filters filters) {
        filters.register(rc -> {
            if (rc.request().headers().contains("Content-Encoding") && refused(rc.request().headers().getAll("Content-Encoding"))
                    && (rc.request().path().startsWith("/api/") || rc.request().path().startsWith("/webhooks/"))) {
                EarlyRefusal.send(rc, 415, problem, null);
                return;
            }
            rc.next();
        }, 98);
    }

    private static boolean refused(java.util.List<String> headers) {
        for (String h : headers) {
            if (!isIdentity(h)) {
                return true;
            }
        }
        return false;
    }

    /** @return true when every listed coding is "identity" (or the header is blank) */
    static boolean isIdentity(String header) {
        for (String coding : header.split(",")) {
            String c = coding.trim();
            if (!c.isEmpty() && !c.equalsIgnoreCase("identity")) {
                return false;
            }
        }
        return true;
    }
}
