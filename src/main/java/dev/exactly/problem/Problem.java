package dev.exactly.problem;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.List;

/**
 * An RFC 9457 problem details object, served as {@code application/problem+json}.
 *
 * @param type   a URI reference naming the kind of problem (relative, e.g. /problems/invalid-request)
 * @param title  a short summary of the kind
 * @param status the HTTP status code
 * @param detail what happened in this occurrence
 * @param errors per-field reasons (an extension member), or null
 */
@RegisterForReflection
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Problem(String type, String title, int status, String detail, List<FieldError> errors) {

    /** The media type of a problem details document (RFC 9457, section 3). */
    public static final String MEDIA_TYPE = "application/problem+json";
}
