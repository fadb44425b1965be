package dev.exactly.http;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.exactly.problem.ApiProblem;
import dev.exactly.problem.FieldError;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/**
 * The streaming half of the request-reading toolkit: opens a strict parser over a body and offers
 * field readers that record a {@link FieldError} (at an {@link ErrorPath}) instead of throwing, so
 * a reader reports every bad field of a request at once. Every endpoint that reads a JSON body
 * reads it through this class, {@link ArrayEnvelope} and {@link JsonTree}.
 *
 * <p>Streaming is what keeps a value byte for byte: a push payload, a task's data and result are
 * cut out of the body by the parser's byte offsets ({@link #raw}), so numbers, key order and
 * escapes reach the store unchanged and no tree is built for a 10,000-item push. Small bodies with
 * no such value (pop, ack, queue options) are read as trees by {@link JsonTree}, whose readers
 * report errors in the order the fields are checked rather than the order they were sent.
 *
 * <p>The parser refuses duplicate member names (StreamReadFeature.STRICT_DUPLICATE_DETECTION):
 * with "last wins", a second {@code transactionId} would silently change what deduplicates.
 */
public final class JsonRequest {

    private static final ObjectMapper STRICT = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    /** Reads a body's root object; the parser stands on its START_OBJECT. */
    @FunctionalInterface
    public interface Body<T> {
        /**
         * @param p the parser
         * @return what was read
         * @throws IOException on malformed JSON
         */
        T read(JsonParser p) throws IOException;
    }

    /**
     * A JSON value exactly as sent, and whether every string in it is well-formed Unicode.
     *
     * @param bytes             the value's bytes in the body
     * @param wellFormedStrings false when a string or member name holds a lone surrogate escape
     */
    public record Raw(byte[] bytes, boolean wellFormedStrings) {
    }

    private JsonRequest() {
    }

    /**
     * Refuses a body over the route's limit before it is parsed.
     *
     * @param body the request body
     * @param max  the limit, in bytes
     * @throws ApiProblem 413 when the body is longer
     */
    public static void checkSize(byte[] body, long max) {
        if (body.length > max) {
            throw ApiProblem.tooLarge("the body is " + body.length + " bytes; the limit is " + max + " bytes");
        }
    }

    /**
     * Parses a body that must be one JSON object and nothing after it, the reader standing on
     * the object's START_OBJECT. What the reader throws is passed on.
     *
     * @param body      UTF-8 JSON
     * @param notObject the 400's detail when the body is empty or its root is not an object
     * @param reader    reads the object
     * @return what the reader returned
     * @throws ApiProblem 400 for a body that is not UTF-8, malformed, has a duplicate member name,
     *                    is not an object or has content after it
     */
    public static <T> T read(byte[] body, String notObject, Body<T> reader) {
        // raw values are cut out of the body by byte offset, which only a UTF-8 parser provides
        JsonBodies.requireUtf8(body);
        try (JsonParser p = STRICT.createParser(body)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw ApiProblem.invalid(null, null, notObject);
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

    /**
     * Moves to the next member of the current object and onto its value: use as
     * {@code for (String name; (name = nextMember(p)) != null; ) switch (name) …}.
     *
     * @param p a parser inside an object
     * @return the member's name, or null at the object's end
     * @throws IOException on malformed JSON
     */
    public static String nextMember(JsonParser p) throws IOException {
        if (p.nextToken() != JsonToken.FIELD_NAME) {
            return null;
        }
        String name = p.currentName();
        p.nextToken();
        return name;
    }

    /**
     * Records an unknown member and skips its value: unknown fields are refused, as a misspelt
     * {@code transactionID} would otherwise silently turn deduplication off.
     *
     * @param p      a parser on the member's value
     * @param at     where the object is
     * @param name   the member's name
     * @param errors where the error is added
     * @throws IOException on malformed JSON
     */
    public static void unknown(JsonParser p, ErrorPath at, String name, List<FieldError> errors) throws IOException {
        errors.add(at.error(name, "unknown field"));
        p.skipChildren();
    }

    /**
     * Whether the current value is an object; records {@code message} for the value and skips it
     * when it is not.
     *
     * @param p       a parser on the value
     * @param at      the value's path
     * @param message e.g. "an item must be a JSON object"
     * @param errors  where the error is added
     * @return true when the parser stands on a START_OBJECT
     * @throws IOException on malformed JSON
     */
    public static boolean object(JsonParser p, ErrorPath at, String message, List<FieldError> errors)
            throws IOException {
        if (p.currentToken() == JsonToken.START_OBJECT) {
            return true;
        }
        errors.add(at.whole(message));
        p.skipChildren();
        return false;
    }

    /**
     * @return the current value as a string; null for JSON null; null after recording
     *         "must be a string" for another type
     * @throws IOException on malformed JSON
     */
    public static String string(JsonParser p, ErrorPath at, String field, List<FieldError> errors) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_STRING) {
            return p.getText();
        }
        if (t != JsonToken.VALUE_NULL) {
            errors.add(at.error(field, "must be a string"));
            p.skipChildren();
        }
        return null;
    }

    /**
     * @return the current value as an integer in [min, max]; null for JSON null; null after
     *         recording an error for anything else (a fraction such as 1.0 included)
     * @throws IOException on malformed JSON
     */
    public static Integer integer(JsonParser p, ErrorPath at, String field, long min, long max,
                                  List<FieldError> errors) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NULL) {
            return null;
        }
        if (t != JsonToken.VALUE_NUMBER_INT) {
            errors.add(at.error(field, "must be an integer"));
            p.skipChildren();
            return null;
        }
        if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                || p.getLongValue() < min || p.getLongValue() > max) {
            errors.add(at.error(field, "must be an integer from " + min + " to " + max));
            return null;
        }
        return (int) p.getLongValue();
    }

    /**
     * @return the current value as a boolean; null for JSON null; null after recording
     *         "must be true or false" for another type
     * @throws IOException on malformed JSON
     */
    public static Boolean bool(JsonParser p, ErrorPath at, String field, List<FieldError> errors) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_TRUE || t == JsonToken.VALUE_FALSE) {
            return t == JsonToken.VALUE_TRUE;
        }
        if (t != JsonToken.VALUE_NULL) {
            errors.add(at.error(field, "must be true or false"));
            p.skipChildren();
        }
        return null;
    }

    /**
     * The current JSON value's exact bytes in the body, leaving the parser on its last token.
     *
     * @param p    a parser over {@code body} on the value's first token
     * @param body the body the parser reads
     * @return a copy of the value's bytes
     * @throws IOException on malformed JSON
     */
    public static byte[] raw(JsonParser p, byte[] body) throws IOException {
        int start = (int) p.currentTokenLocation().getByteOffset();
        int end;
        if (p.currentToken().isStructStart()) {
            p.skipChildren();
            end = (int) p.currentTokenLocation().getByteOffset() + 1;
        } else {
            p.finishToken();
            end = (int) p.currentLocation().getByteOffset();
        }
        return Arrays.copyOfRange(body, start, end);
    }

    /**
     * Like {@link #raw}, and tells whether all the value's strings and member names are
     * well-formed Unicode (no lone surrogate escape, so each has a UTF-8 form).
     *
     * @param p    a parser over {@code body} on the value's first token
     * @param body the body the parser reads
     * @return the bytes and the check
     * @throws IOException on malformed JSON
     */
    public static Raw checkedRaw(JsonParser p, byte[] body) throws IOException {
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

    private static boolean wellFormedUnicode(String s) {
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

    /**
     * A UUID written out in full: 36 characters that {@link UUID#fromString} reads (RFC 9562,
     * section 4), so not the short forms such as "1-1-1-1-1" that it also accepts.
     *
     * @param text the field's text
     * @return the UUID, or null when the text is not one
     */
    public static UUID uuid(String text) {
        if (text.length() != 36) {
            return null;
        }
        try {
            return UUID.fromString(text);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * Adds {@code field}'s error when a check gave a reason.
     *
     * @param reason what a check (e.g. {@code Names.checkName}) found wrong, or null
     */
    public static void check(List<FieldError> errors, ErrorPath at, String field, String reason) {
        if (reason != null) {
            errors.add(at.error(field, reason));
        }
    }

    /**
     * Adds "is required"-style {@code message} for a missing field unless an error since
     * {@code from} already names it (a field sent with the wrong type is absent once read).
     *
     * @param from the errors' size when the object's reading began
     */
    public static void required(List<FieldError> errors, int from, ErrorPath at, String field, String message) {
        FieldError e = at.error(field, message);
        for (int i = from; i < errors.size(); i++) {
            if (e.field().equals(errors.get(i).field())) {
                return;
            }
        }
        errors.add(e);
    }
}
