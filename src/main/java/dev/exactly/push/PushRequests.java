package dev.exactly.push;

import dev.exactly.naming.Names;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.exactly.engine.PushCommand;
import dev.exactly.http.ArrayEnvelope;
import dev.exactly.http.ErrorPath;
import dev.exactly.http.JsonRequest;
import dev.exactly.problem.ApiProblem;
import dev.exactly.problem.FieldError;
import java.io.IOException;
import java.util.List;

/**
 * Reads a push request body, {@code {"items":[{"queue","partition"?,"transactionId"?,"payload","traceId"?}]}},
 * with the streaming toolkit ({@link ArrayEnvelope}, {@link JsonRequest}), and validates every
 * item before anything is written.
 *
 * <p>Each payload is kept as the exact bytes of its JSON value in the body (no re-serialisation,
 * so numbers and key order reach the store unchanged). Duplicate keys and unknown fields are
 * refused: a misspelt {@code transactionID} would otherwise silently turn deduplication off.
 *
 * @throws ApiProblem (400) for a body that is not UTF-8, malformed JSON or invalid items, naming the
 *         item index and field
 */
public final class PushRequests {

    /**
     * @param body     the request body (UTF-8 JSON)
     * @param maxItems the most items allowed
     * @return the items, in request order
     */
    public List<PushCommand> read(byte[] body, int maxItems) {
        return ArrayEnvelope.of("items", maxItems, "items per request").locatingDuplicates()
                .read(body, (p, at, errors) -> readItem(p, body, at, errors));
    }

    /**
     * Reads and validates one push item, the parser standing on its first token. Shared with
     * adapters whose bodies embed push items (the transaction endpoint).
     *
     * @param p      a parser over {@code body}, positioned on the item's value
     * @param body   the whole request body (a payload is kept as its exact bytes in it)
     * @param at     the item's path, for the errors
     * @param errors where problems are added
     * @return the item, or null when it had errors
     * @throws IOException on malformed JSON
     */
    public static PushCommand readItem(JsonParser p, byte[] body, ErrorPath at, List<FieldError> errors)
            throws IOException {
        if (!JsonRequest.object(p, at, "an item must be a JSON object", errors)) {
            return null;
        }
        int before = errors.size();
        String queue = null;
        String partition = null;
        String txn = null;
        String trace = null;
        byte[] payload = null;
        for (String name; (name = JsonRequest.nextMember(p)) != null; ) {
            switch (name) {
                case "queue" -> queue = JsonRequest.string(p, at, name, errors);
                case "partition" -> partition = JsonRequest.string(p, at, name, errors);
                case "transactionId" -> txn = JsonRequest.string(p, at, name, errors);
                case "traceId" -> trace = JsonRequest.string(p, at, name, errors);
                case "payload" -> payload = p.currentToken() == JsonToken.VALUE_NULL ? null : JsonRequest.raw(p, body);
                default -> JsonRequest.unknown(p, at, name, errors);
            }
        }
        if (queue == null) {
            JsonRequest.required(errors, before, at, "queue", "is required");
        } else {
            JsonRequest.check(errors, at, "queue", Names.checkName(queue));
        }
        if (partition != null) {
            JsonRequest.check(errors, at, "partition", Names.checkName(partition));
        }
        if (txn != null) {
            JsonRequest.check(errors, at, "transactionId", Names.checkKey(txn, Names.MAX_TRANSACTION_ID_BYTES));
        }
        if (trace != null) {
            JsonRequest.check(errors, at, "traceId", Names.checkKey(trace, Names.MAX_TRACE_ID_BYTES));
        }
        if (payload == null) {
            errors.add(at.error("payload", "is required (any JSON value but null)"));
        }
        return errors.size() == before ? PushCommand.json(queue, partition, txn, payload, trace) : null;
    }
}
