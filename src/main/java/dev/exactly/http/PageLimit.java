package dev.exactly.http;

import jakarta.validation.Constraint;
import jakarta.validation.Payload;
import jakarta.validation.ReportAsSingleViolation;
import jakarta.validation.constraints.Pattern;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A listing's {@code limit} query parameter: a whole number from 1 to {@value #MAX}, leading zeros
 * allowed; null (absent) is valid and means the listing's default page size. Refused
 * values get the one message below, whatever the pattern says.
 */
@Target({ElementType.PARAMETER, ElementType.FIELD})
@Retention(RetentionPolicy.RUNTIME)
@Constraint(validatedBy = {})
@ReportAsSingleViolation
@Pattern(regexp = "0*([1-9][0-9]{0,2}|1000)")
public @interface PageLimit {

    /** The largest page a listing answers, in entries. */
    int MAX = 1000;

    /** The refusal's reason. */
    String message() default "must be a whole number from 1 to " + MAX;

    /** Bean Validation groups (none used). */
    Class<?>[] groups() default {};

    /** Bean Validation payload (none used). */
    Class<? extends Payload>[] payload() default {};
}
