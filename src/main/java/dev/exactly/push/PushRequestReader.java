package dev.exactly.push;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import dev.exactly.engine.PushCommand;
import dev.exactly.http.JsonBodies;
import dev.exactly.problem.ApiProblem;
import dev.exactly.problem.FieldError;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads a push request body, {@code {"items":[{"queue","partition"?,"transactionId"?,"payload","traceId"?}]}},
 * with a streaming parser, and validates every item before anything is written.
 *
 * <p>Each payload is kept as the exact bytes of its JSON value in the body (no re-serialisation,
 * so numbers and key order reach the store unchanged). Duplicate keys and unknown fields are
 * refused: a misspelt {@code transactionID} would otherwise silently turn deduplication off.
 *
 * @throws ApiProblem (400) for a body that is not UTF-8, malformed JSON or invalid items, naming the
 *         item index and field
 */
public final class PushRequestReader {

    private static final int MAX_REPORTED_ERRORS = 50;

    private final JsonFactory factory = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    /**
     * @param body     the request body (UTF-8 JSON)
     * @param maxItems the most items allowed
     * @return the items, in request order
     */
    public List<PushCommand> read(byte[] body, int maxItems) {
        // payloads are cut out of the body by byte offset, which only a UTF-8 parser provides
        JsonBodies.requireUtf8(body);
        List<FieldError> errors = new ArrayList<>();
        List<PushCommand> items = new ArrayList<>();
        int index = -1; // the item being read, for a duplicate key's location
        try (JsonParser p = factory.createParser(body)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw ApiProblem.invalid(null, null, "the body must be a JSON object with an \"items\" array");
            }
            boolean sawItems = false;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken t = p.nextToken();
                if (!"items".equals(name)) {
                    errors.add(new FieldError(null, name, "unknown field"));
                    p.skipChildren();
                    continue;
                }
                sawItems = true;
                if (t != JsonToken.START_ARRAY) {
                    errors.add(new FieldError(null, "items", "must be an array"));
                    p.skipChildren();
                    continue;
                }
                index = 0;
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    if (index >= maxItems) {
                        throw ApiProblem.invalid(null, "items", "at most " + maxItems + " items per request");
                    }
                    PushCommand c = readItem(p, body, index, errors);
                    if (c != null) {
                        items.add(c);
                    }
                    index++;
                    if (errors.size() >= MAX_REPORTED_ERRORS) {
                        throw ApiProblem.invalid(errors);
                    }
                }
            }
            if (!sawItems) {
                errors.add(new FieldError(null, "items", "is required"));
            }
            if (p.nextToken() != null) {
                throw ApiProblem.invalid(null, null, "unexpected content after the JSON object");
            }
        } catch (IOException e) {
            throw JsonBodies.unparsable(e, index >= 0 ? index : null);
        }
        if (!errors.isEmpty()) {
            throw ApiProblem.invalid(errors);
        }
        return items;
    }

    /**
     * Reads and validates one push item, the parser standing on its first token. Shared with
     * adapters whose bodies embed push items (the transaction endpoint).
     *
     * @param p      a parser over {@code body}, positioned on the item's value
     * @param body   the whole request body (a payload is kept as its exact bytes in it)
     * @param index  the item's position, for the errors
     * @param errors where problems are added (the item's index and field)
     * @return the item, or null when it had errors
     * @throws IOException on malformed JSON
     */
    public static PushCommand readItem(JsonParser p, byte[] body, int index, List<FieldError> errors)
            throws IOException {
        if (p.currentToken() != JsonToken.START_OBJECT) {
            errors.add(new FieldError(index, null, "an item must be a JSON object"));
            p.skipChildren();
            return null;
        }
        int before = errors.size();
        String queue = null;
        String partition = null;
        String txn = null;
        String trace = null;
        byte[] payload = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken t = p.nextToken();
            switch (name) {
                case "queue" -> queue = string(p, t, index, name, errors);
                case "partition" -> partition = string(p, t, index, name, errors);
                case "transactionId" -> txn = string(p, t, index, name, errors);
                case "traceId" -> trace = string(p, t, index, name, errors);
                case "payload" -> payload = t == JsonToken.VALUE_NULL ? null : rawValue(p, body);
                default -> {
                    errors.add(new FieldError(index, name, "unknown field"));
                    p.skipChildren();
                }
            }
        }
        if (queue == null) {
            addUnlessReported(errors, before, index, "queue", "is required");
        } else {
            check(errors, index, "queue", Names.checkName(queue));
        }
        if (partition == null) {
            partition = Names.DEFAULT_PARTITION;
        } else {
            check(errors, index, "partition", Names.checkName(partition));
        }
        if (txn != null) {
            check(errors, index, "transactionId", Names.checkKey(txn, Names.MAX_TRANSACTION_ID_BYTES));
        }
        if (trace != null) {
            check(errors, index, "traceId", Names.checkKey(trace, Names.MAX_TRACE_ID_BYTES));
        }
        if (payload == null) {
            errors.add(new FieldError(index, "payload", "is required (any JSON value but null)"));
        }
        return errors.size() == before ? PushCommand.json(queue, partition, txn, payload, trace) : null;
    }

    private static String string(JsonParser p, JsonToken t, int index, String field, List<FieldError> errors)
            throws IOException {
        if (t == JsonToken.VALUE_STRING) {
            return p.getText();
        }
        if (t != JsonToken.VALUE_NULL) {
            errors.add(new FieldError(index, field, "must be a string"));
            p.skipChildren();
        }
        return null;
    }

    /** The exact bytes of the current JSON value. */
    private static byte[] rawValue(JsonParser p, byte[] body) throws IOException {
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

    private static void check(List<FieldError> errors, int index, String field, String reason) {
        if (reason != null) {
            errors.add(new FieldError(index, field, reason));
        }
    }

    private static void addUnlessReported(List<FieldError> errors, int from, int index, String field, String msg) {
        for (int i = from; i < errors.size(); i++) {
            if (field.equals(errors.get(i).field())) {
                return;
            }
        }
        errors.add(new FieldError(index, field, msg));
    }
}
