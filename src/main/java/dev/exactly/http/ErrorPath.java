package dev.exactly.http;

import dev.exactly.problem.FieldError;

/**
 * Where a value sits in a request body, for the {@link FieldError}s that name it: the item's
 * position in the body's top-level array ({@link FieldError#index()}, which the problem's detail
 * writes as {@code tasks[3]}), and a path written before the field's name
 * ({@code "operations[1].items[0]."}) for a value nested deeper.
 *
 * @param index  the top-level item's position (0-based), or null
 * @param prefix written before every field name: "" or a path ending with '.'
 */
public record ErrorPath(Integer index, String prefix) {

    /** The body itself: no index, no prefix. */
    public static final ErrorPath ROOT = new ErrorPath(null, "");

    /**
     * @param index an item's position in the body's top-level array
     * @return that item, named by {@link FieldError#index()}
     */
    public static ErrorPath item(int index) {
        return new ErrorPath(index, "");
    }

    /**
     * @param array the array's field name, e.g. "items"
     * @param i     the element's position (0-based)
     * @return the element {@code array[i]} below this path, named in the field ("operations[1].items[0].")
     */
    public ErrorPath element(String array, int i) {
        return new ErrorPath(index, prefix + array + "[" + i + "].");
    }

    /**
     * @param field   the field's name below this path
     * @param message what is wrong
     * @return the error, e.g. (null, "operations[1].type", message)
     */
    public FieldError error(String field, String message) {
        return new FieldError(index, prefix + field, message);
    }

    /**
     * @param message what is wrong with the value at this path as a whole
     * @return the error naming the path itself (field null at the root or for a top-level item)
     */
    public FieldError whole(String message) {
        return new FieldError(index, prefix.isEmpty() ? null : prefix.substring(0, prefix.length() - 1), message);
    }
}
