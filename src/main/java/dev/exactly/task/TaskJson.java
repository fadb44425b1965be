package dev.exactly.task;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import dev.exactly.http.JsonBodies;
import dev.exactly.problem.ApiProblem;
import dev.exactly.problem.FieldError;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;

/**
 * Streaming JSON helpers shared by the task request readers: typed field values that record a
 * {@link FieldError} instead of throwing, raw JSON values kept byte for byte, and the 400
 * problem for malformed bodies. Duplicate member names are refused (strict detection).
 */
final class TaskJson {

    /** A JSON value exactly as sent, and whether every string in it is well-formed Unicode. */
    record Raw(byte[] bytes, boolean wellFormedStrings) {
    }

    /** Reads one JSON object; positioned at its START_OBJECT. */
    @FunctionalInterface
    interface Body<T> {
        T read(JsonParser p) throws IOException;
    }

    private static final JsonFactory FACTORY = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    private TaskJson() {
    }

    /**
     * Parses a body that must be one JSON object and nothing after it.
     *
     * @throws ApiProblem 400 for an empty, non-UTF-8 or malformed body, duplicate member names, or a
     *                    top-level value that is not an object
     */
    static <T> T parse(byte[] body, String shape, Body<T> reader) {
        // raw values are cut out of the body by byte offset, which only a UTF-8 parser provides
        dev.exactly.http.JsonBodies.requireUtf8(body);
        try (JsonParser p = FACTORY.createParser(body)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw ApiProblem.invalid(null, null, "the body must be a JSON object: " + shape);
            }
            T out = reader.read(p);
            if (p.nextToken() != null) {
                throw ApiProblem.invalid(null, null, "unexpected content after the JSON object");
            }
            return out;
        } catch (IOException e) {
            throw JsonBodies.unparsable(e, null);
        }
    }

    /** The current value as a string; null for JSON null; records an error for another type. */
    static String string(JsonParser p, Integer index, String field, List<FieldError> errors) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_STRING) {
            return p.getText();
        }
        if (t != JsonToken.VALUE_NULL) {
            errors.add(new FieldError(index, field, "must be a string"));
            p.skipChildren();
        }
        return null;
    }

    /**
     * The current value as an integer in [min, max]; null for JSON null; records an error for
     * anything else (a fraction such as 1.0 included).
     */
    static Integer integer(JsonParser p, Integer index, String field, long min, long max, List<FieldError> errors)
            throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NULL) {
            return null;
        }
        if (t != JsonToken.VALUE_NUMBER_INT) {
            errors.add(new FieldError(index, field, "must be an integer"));
            p.skipChildren();
            return null;
        }
        if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                || p.getLongValue() < min || p.getLongValue() > max) {
            errors.add(new FieldError(index, field, "must be an integer from " + min + " to " + max));
            return null;
        }
        return (int) p.getLongValue();
    }

    /** The current value as a boolean; null for JSON null; records an error for another type. */
    static Boolean bool(JsonParser p, Integer index, String field, List<FieldError> errors) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_TRUE || t == JsonToken.VALUE_FALSE) {
            return t == JsonToken.VALUE_TRUE;
        }
        if (t != JsonToken.VALUE_NULL) {
            errors.add(new FieldError(index, field, "must be true or false"));
            p.skipChildren();
        }
        return null;
    }

    /**
     * The current JSON value (any, null included) as the exact bytes of the body, leaving the
     * parser on its last token, and whether all its strings and member names are well-formed
     * Unicode (no lone surrogate).
     */
    static Raw raw(JsonParser p, byte[] body) throws IOException {
        int start = (int) p.currentTokenLocation().getByteOffset();
        boolean wellFormed = true;
        int depth = 0;
        JsonToken t = p.currentToken();
        while (true) {
            if (t == JsonToken.VALUE_STRING || t == JsonToken.FIELD_NAME) {
                wellFormed &= wellFormedUnicode(p.getText());
            } else if (t.isStructStart()) {
                depth++;
            } else if (t.isStructEnd()) {
                depth--;
            }
            if (depth == 0) {
                break;
            }
            t = p.nextToken();
        }
        int end;
        if (t.isStructEnd()) {
            end = (int) p.currentTokenLocation().getByteOffset() + 1;
        } else {
            p.finishToken();
            end = (int) p.currentLocation().getByteOffset();
        }
        return new Raw(Arrays.copyOfRange(body, start, end), wellFormed);
    }

    /** True when s has no lone surrogate (so it has a UTF-8 form). */
    static boolean wellFormedUnicode(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return false;
            }
        }
        return true;
    }

    /** Adds the error when reason is not null. */
    static void check(List<FieldError> errors, Integer index, String field, String reason) {
        if (reason != null) {
            errors.add(new FieldError(index, field, reason));
        }
    }

    /**
     * A 400 problem whose detail names list items as {@code list[i].field}.
     *
     * @param list the name of the request's list ("tasks")
     */
    static ApiProblem invalid(String list, List<FieldError> errors) {
        FieldError first = errors.get(0);
        StringBuilder where = new StringBuilder();
        if (first.index() != null) {
            where.append(list).append('[').append(first.index()).append(']');
        }
        if (first.field() != null) {
            where.append(where.length() > 0 ? "." : "").append(first.field());
        }
        String one = (where.length() > 0 ? where + ": " : "") + first.message();
        String detail = errors.size() == 1 ? one : errors.size() + " fields are invalid; the first: " + one;
        return new ApiProblem(400, "invalid-request", "Invalid request", detail, errors);
    }
}
