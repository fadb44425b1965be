package dev.exactly.problem;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * One machine-readable reason a request was refused.
 *
 * @param index   the item's position in the request's list (0-based), or null for a top-level field
 * @param field   the field's name (JSON property, or the query parameter), or null for the body as a whole
 * @param message what is wrong, for a person
 */
@RegisterForReflection
@JsonInclude(JsonInclude.Include.NON_NULL)
public record FieldError(Integer index, String field, String message) {
}
