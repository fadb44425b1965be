package dev.exactly.naming;

import jakarta.validation.Constraint;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import jakarta.validation.Payload;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A queue, partition, consumer group or task id: {@link Names#checkName}'s rule, whose reason is the
 * message. Null is valid (use {@code @NotNull} where a name is required).
 */
@Target({ElementType.FIELD, ElementType.PARAMETER, ElementType.TYPE_USE})
@Retention(RetentionPolicy.RUNTIME)
@Constraint(validatedBy = Name.Validator.class)
public @interface Name {

    /** Unused: the message is the rule's reason. */
    String message() default "is not a valid name";

    /** Bean Validation groups (none used). */
    Class<?>[] groups() default {};

    /** Bean Validation payload (none used). */
    Class<? extends Payload>[] payload() default {};

    /** Checks a name with {@link Names#checkName}. */
    class Validator implements ConstraintValidator<Name, String> {
        @Override
        public boolean isValid(String value, ConstraintValidatorContext context) {
            String why = value == null ? null : Names.checkName(value);
            if (why != null) { // the reasons are plain text: no braces or dollars to escape
                context.disableDefaultConstraintViolation();
                context.buildConstraintViolationWithTemplate(why).addConstraintViolation();
            }
            return why == null;
        }
    }
}
