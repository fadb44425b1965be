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
 * An opaque key (transactionId, traceId, a task type, an error text): {@link Names#checkKey}'s rule
 * with this many UTF-8 bytes at most, whose reason is the message. Null is valid.
 */
@Target({ElementType.FIELD, ElementType.PARAMETER, ElementType.TYPE_USE})
@Retention(RetentionPolicy.RUNTIME)
@Constraint(validatedBy = Key.Validator.class)
public @interface Key {

    /** The most UTF-8 bytes. */
    int maxBytes();

    /** Unused: the message is the rule's reason. */
    String message() default "is not a valid key";

    /** Bean Validation groups (none used). */
    Class<?>[] groups() default {};

    /** Bean Validation payload (none used). */
    Class<? extends Payload>[] payload() default {};

    /** Checks a key with {@link Names#checkKey}. */
    class Validator implements ConstraintValidator<Key, String> {
        private int maxBytes;

        @Override
        public void initialize(Key key) {
            maxBytes = key.maxBytes();
        }

        @Override
        public boolean isValid(String value, ConstraintValidatorContext context) {
            String why = value == null ? null : Names.checkKey(value, maxBytes);
            if (why != null) { // the reasons are plain text: no braces or dollars to escape
                context.disableDefaultConstraintViolation();
                context.buildConstraintViolationWithTemplate(why).addConstraintViolation();
            }
            return why == null;
        }
    }
}
