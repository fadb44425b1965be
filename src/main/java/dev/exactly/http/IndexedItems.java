package dev.exactly.http;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a request record whose one list holds the request's items (push {@code items}, task
 * {@code tasks}, ack batch {@code items}): a refusal names an item by its position,
 * {@code errors[].index}, and the field inside it, and the detail writes {@code tasks[3].type}
 * ({@link RequestProblems}). In any other body a value is named by its whole path.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface IndexedItems {
}
