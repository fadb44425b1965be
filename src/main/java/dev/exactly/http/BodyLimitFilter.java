package dev.exactly.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.exactly.config.ExactlyConfig;
import dev.exactly.problem.ApiProblem;
import io.quarkus.vertx.http.runtime.filters.Filters;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * Refuses a request whose Content-Length exceeds exactly.push.max-body-bytes with 413
 * problem+json before its body is read. (Bodies without a Content-Length are checked by the
 * resources after reading, up to the outer quarkus.http.limits.max-body-size.)
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
            if (length != null && tooLong(length)) {
                EarlyRefusal.send(rc, 413, problem);
                return;
            }
            rc.next();
        }, 100);
    }

    private boolean tooLong(String length) {
        try {
            return Long.parseLong(length.trim()) > maxBytes;
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
