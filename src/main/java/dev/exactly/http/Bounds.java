package dev.exactly.http;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The range of a request record's number field whose check is the record's own ({@link Checked}
 * rules shared with the configuration), for the one refusal that comes before any check: a value
 * beyond the field's Java type, which Jackson refuses while binding. {@link RequestProblems} then
 * answers "must be between min and max" instead of the type's range. Fields with {@code @Min} and
 * {@code @Max} need none: their bounds are read from those.
 */
@Target({ElementType.RECORD_COMPONENT, ElementType.PARAMETER, ElementType.FIELD, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
public @interface Bounds {

    /** The smallest value allowed. */
    long min();

    /** The largest value allowed. */
    long max();
}
