package dev.exactly.transaction;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.exactly.consume.AckCommand;
import dev.exactly.consume.ConsumeRequests;
import dev.exactly.engine.PushCommand;
import dev.exactly.http.ArrayEnvelope;
import dev.exactly.http.ErrorPath;
import dev.exactly.http.JsonRequest;
import dev.exactly.problem.ApiProblem;
import dev.exactly.problem.FieldError;
import dev.exactly.push.PushRequests;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a transaction body, {@code {"operations":[{"type":"push","items":[…]}, {"type":"ack", …ack fields}]}},
 * with the streaming toolkit, validating everything before anything is written. Push items
 * follow the push API's rules ({@link PushRequests#readItem}, their payloads kept as the
 * exact bytes of the body); an ack's fields are gathered into a tree and follow the ack API's
 * ({@link ConsumeRequests#ack}). Errors name the field as {@code operations[i].items[j].field}
 * or {@code operations[i].field}.
 *
 * @throws ApiProblem (400) for malformed JSON or invalid operations
 */
public final class TransactionRequests {

    /** Most operations in one transaction. */
    public static final int MAX_OPERATIONS = 1000;

    private static final ArrayEnvelope OPERATIONS =
            ArrayEnvelope.of("operations", MAX_OPERATIONS, "operations per transaction").pathed();

    /**
     * @param body     the request body (UTF-8 JSON)
     * @param maxItems the most push items allowed over all push operations
     * @return the operations, in request order
     */
    public List<TransactionOperation> read(byte[] body, int maxItems) {
        int[] itemCount = {0};
        return OPERATIONS.read(body, (p, at, errors) -> readOperation(p, body, at, maxItems, itemCount, errors));
    }

    private static TransactionOperation readOperation(JsonParser p, byte[] body, ErrorPath at, int maxItems,
                                                      int[] itemCount, List<FieldError> errors) throws IOException {
        if (!JsonRequest.object(p, at, "an operation must be a JSON object", errors)) {
            return null;
        }
        int before = errors.size();
        String type = null;
        List<PushCommand> items = null;
        ObjectNode rest = JsonNodeFactory.instance.objectNode();
        for (String name; (name = JsonRequest.nextMember(p)) != null; ) {
            if ("items".equals(name)) {
                items = items(p, body, at, maxItems, itemCount, errors);
            } else if ("type".equals(name)) {
                if (p.currentToken() != JsonToken.VALUE_STRING) {
                    errors.add(at.error("type", "must be \"push\" or \"ack\""));
                    p.skipChildren();
                } else {
                    type = p.getText();
                }
            } else {
                rest.set(name, p.readValueAsTree());
            }
        }
        if ("push".equals(type)) {
            rest.fieldNames().forEachRemaining(f -> errors.add(at.error(f, "unknown field")));
            if (items == null) {
                errors.add(at.error("items", "is required for a push"));
            }
            return errors.size() == before ? new TransactionOperation.Push(items) : null;
        }
        if ("ack".equals(type)) {
            if (items != null) {
                errors.add(at.error("items", "unknown field for an ack"));
            }
            AckCommand ack = ConsumeRequests.ack(rest, at, errors);
            return errors.size() == before ? new TransactionOperation.Ack(ack) : null;
        }
        errors.add(at.error("type", type == null ? "is required: \"push\" or \"ack\"" : "must be \"push\" or \"ack\""));
        return null;
    }

    /** A push operation's items, the parser on the array; null when it is not an array. */
    private static List<PushCommand> items(JsonParser p, byte[] body, ErrorPath at, int maxItems, int[] itemCount,
                                           List<FieldError> errors) throws IOException {
        if (p.currentToken() != JsonToken.START_ARRAY) {
            errors.add(at.error("items", "must be an array"));
            p.skipChildren();
            return null;
        }
        List<PushCommand> items = new ArrayList<>();
        for (int j = 0; p.nextToken() != JsonToken.END_ARRAY; j++) {
            if (++itemCount[0] > maxItems) {
                throw ApiProblem.invalid(null, "operations", "at most " + maxItems + " push items per transaction");
            }
            PushCommand c = PushRequests.readItem(p, body, at.element("items", j), errors);
            if (c != null) {
                items.add(c);
            }
        }
        return items;
    }
}
