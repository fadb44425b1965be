package dev.exactly.http;

import jakarta.validation.Constraint;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import jakarta.validation.Payload;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.function.BiConsumer;

/**
 * A request record's rules across its fields (an ack names exactly one of transactionId and
 * messageId; a redrive takes messageIds or a limit), checked by Hibernate Validator together with
 * its field constraints: the record implements {@link Rules}, and each broken rule is a violation
 * on the field it names, so it is reported where the record sits in the body
 * ({@code items[2].queue}).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Constraint(validatedBy = Checked.Validator.class)
public @interface Checked {

    /** Unused: each broken rule brings its own message. */
    String message() default "invalid";

    /** Bean Validation groups (none used). */
    Class<?>[] groups() default {};

    /** Bean Validation payload (none used). */
    Class<? extends Payload>[] payload() default {};

    /** A record with rules across its fields. */
    interface Rules {
        /**
         * Reports each broken rule.
         *
         * @param broken takes the field a broken rule names (a JSON member of this record) and what is wrong
         */
        void check(BiConsumer<String, String> broken);
    }

    /** Turns each broken rule into a violation on its field. */
    class Validator implements ConstraintValidator<Checked, Rules> {
        @Override
        public boolean isValid(Rules value, ConstraintValidatorContext context) {
            if (value == null) {
                return true;
            }
            boolean[] valid = {true};
            value.check((field, message) -> {
                valid[0] = false;
                // a message is text, not a template: braces, dollars and backslashes are escaped
                context.buildConstraintViolationWithTemplate(message.replaceAll("([\\\\{}$])", "\\\\$1"))
                        .addPropertyNode(field).addConstraintViolation();
            });
            if (!valid[0]) {
                context.disableDefaultConstraintViolation();
            }
            return valid[0];
        }
    }
}
