package dev.exactly.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.exactly.problem.ApiProblem;
import dev.exactly.problem.FieldError;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;

/**
 * The tree half of the request-reading toolkit, for small bodies that keep no value byte for
 * byte (pop, ack, queue options): the body is parsed whole ({@link JsonBodies#object}), then its
 * fields are checked one after the other, so errors come in the order of the checks. The tree
 * stays because these bodies have rules across fields (an ack names exactly one of transactionId
 * and messageId; by transactionId it needs a queue) that are checked once every field is known,
 * and reading them as trees keeps every answer as it was; the bodies are a few hundred bytes.
 * Like {@link JsonRequest}'s readers, these record a {@link FieldError} at an {@link ErrorPath}
 * and return null instead of throwing.
 */
public final class JsonTree {

    private JsonTree() {
    }

    /**
     * @param body UTF-8 JSON
     * @return the root object
     * @throws ApiProblem 400 when the body is empty, not UTF-8, malformed or not an object
     */
    public static JsonNode object(byte[] body) {
        return JsonBodies.object(body);
    }

    /**
     * Checks the body of an endpoint that takes no fields (the admin calls): none at all, only
     * whitespace, or the empty object {@code {}} pass; any field is refused as unknown, as every
     * other endpoint refuses a field it does not know.
     *
     * @param body the request body, possibly empty
     * @throws ApiProblem 400 for a body {@link #object} refuses, or naming each field
     */
    public static void noFields(byte[] body) {
        for (byte b : body) {
            if (b != ' ' && b != '\t' && b != '\n' && b != '\r') {
                read(body, (root, errors) -> {
                    unknownFields(root, Set.of(), ErrorPath.ROOT, errors);
                    return null;
                });
                return;
            }
        }
    }

    /**
     * Reads a whole body as a tree and refuses it when the reader added any error.
     *
     * @param body   UTF-8 JSON
     * @param reader reads the root object, adding errors
     * @return what the reader returned
     * @throws ApiProblem 400 for a body {@link #object} refuses or any error added
     */
    public static <T> T read(byte[] body, Reader<T> reader) {
        JsonNode root = object(body);
        List<FieldError> errors = new ArrayList<>();
        T out = reader.read(root, errors);
        if (!errors.isEmpty()) {
            throw ApiProblem.invalid(errors);
        }
        return out;
    }

    /** Reads a root object, adding errors. */
    @FunctionalInterface
    public interface Reader<T> {
        /**
         * @param root   the body's root object
         * @param errors where errors are added
         * @return what was read (ignored when errors were added)
         */
        T read(JsonNode root, List<FieldError> errors);
    }

    /** Records "unknown field" for each member of {@code node} not in {@code known}, in body order. */
    public static void unknownFields(JsonNode node, Set<String> known, ErrorPath at, List<FieldError> errors) {
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!known.contains(f)) {
                errors.add(at.error(f, "unknown field"));
            }
        }
    }

    /** Whether the member is present and not JSON null. */
    public static boolean present(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v != null && !v.isNull();
    }

    /** @return the member as a string; null when absent or JSON null; null after recording "must be a string" */
    public static String text(JsonNode node, String field, ErrorPath at, List<FieldError> errors) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            errors.add(at.error(field, "must be a string"));
            return null;
        }
        return v.textValue();
    }

    /**
     * @param required records "is required" when the member is absent or JSON null
     * @return the member as a string; null when absent or JSON null; null after recording an error
     */
    public static String text(JsonNode node, String field, boolean required, ErrorPath at, List<FieldError> errors) {
        if (required && !present(node, field)) {
            errors.add(at.error(field, "is required"));
            return null;
        }
        return text(node, field, at, errors);
    }

    /**
     * @return the member as a UUID ({@link JsonRequest#uuid}); null after recording
     *         "must be a UUID" for another string
     */
    public static UUID uuid(JsonNode node, String field, boolean required, ErrorPath at, List<FieldError> errors) {
        String s = text(node, field, required, at, errors);
        UUID id = s == null ? null : JsonRequest.uuid(s);
        if (s != null && id == null) {
            errors.add(at.error(field, "must be a UUID"));
        }
        return id;
    }

    /**
     * @param check a name check (e.g. {@code Names::checkName}) giving the reason a name is refused, or null
     * @return the member as a name passing {@code check}; null after recording the reason
     */
    public static String name(JsonNode node, String field, boolean required, Function<String, String> check,
                              ErrorPath at, List<FieldError> errors) {
        String s = text(node, field, required, at, errors);
        String why = s == null ? null : check.apply(s);
        if (why != null) {
            errors.add(at.error(field, why));
            return null;
        }
        return s;
    }
}
