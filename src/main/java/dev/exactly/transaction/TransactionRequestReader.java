package dev.exactly.transaction;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.exactly.http.JsonBodies;
import dev.exactly.consume.AckCommand;
import dev.exactly.consume.ConsumeRequests;
import dev.exactly.engine.PushCommand;
import dev.exactly.problem.ApiProblem;
import dev.exactly.problem.FieldError;
import dev.exactly.push.PushRequestReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a transaction body, {@code {"operations":[{"type":"push","items":[…]}, {"type":"ack", …ack fields}]}},
 * with a streaming parser, validating everything before anything is written. Push items follow
 * the push API's rules (their payloads kept as the exact bytes of the body); acks follow the ack
 * API's. Errors name the field as {@code operations[i].items[j].field} or {@code operations[i].field}.
 *
 * @throws ApiProblem (400) for malformed JSON or invalid operations
 */
public final class TransactionRequestReader {

    /** Most operations in one transaction. */
    public static final int MAX_OPERATIONS = 1000;

    private static final int MAX_REPORTED_ERRORS = 50;

    private final ObjectMapper mapper = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    /**
     * @param body     the request body (UTF-8 JSON)
     * @param maxItems the most push items allowed over all push operations
     * @return the operations, in request order
     */
    public List<TransactionOperation> read(byte[] body, int maxItems) {
        List<FieldError> errors = new ArrayList<>();
        List<TransactionOperation> ops = new ArrayList<>();
        dev.exactly.http.JsonBodies.requireUtf8(body);
        try (JsonParser p = mapper.createParser(body)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw ApiProblem.invalid(null, null, "the body must be a JSON object with an \"operations\" array");
            }
            boolean sawOperations = false;
            int[] itemCount = {0};
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken t = p.nextToken();
                if (!"operations".equals(name)) {
                    errors.add(new FieldError(null, name, "unknown field"));
                    p.skipChildren();
                    continue;
                }
                sawOperations = true;
                if (t != JsonToken.START_ARRAY) {
                    errors.add(new FieldError(null, "operations", "must be an array"));
                    p.skipChildren();
                    continue;
                }
                int index = 0;
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    if (index >= MAX_OPERATIONS) {
                        throw ApiProblem.invalid(null, "operations", "at most " + MAX_OPERATIONS + " operations per transaction");
                    }
                    TransactionOperation op = readOperation(p, body, index, maxItems, itemCount, errors);
                    if (op != null) {
                        ops.add(op);
                    }
                    index++;
                    if (errors.size() >= MAX_REPORTED_ERRORS) {
                        throw ApiProblem.invalid(errors);
                    }
                }
            }
            if (!sawOperations) {
                errors.add(new FieldError(null, "operations", "is required"));
            }
            if (p.nextToken() != null) {
                throw ApiProblem.invalid(null, null, "unexpected content after the JSON object");
            }
        } catch (IOException e) {
            throw JsonBodies.unparsable(e, null);
        }
        if (!errors.isEmpty()) {
            throw ApiProblem.invalid(errors);
        }
        return ops;
    }

    private TransactionOperation readOperation(JsonParser p, byte[] body, int index, int maxItems, int[] itemCount,
                                               List<FieldError> errors) throws IOException {
        String at = "operations[" + index + "]";
        if (p.currentToken() != JsonToken.START_OBJECT) {
            errors.add(new FieldError(null, at, "an operation must be a JSON object"));
            p.skipChildren();
            return null;
        }
        int before = errors.size();
        String type = null;
        List<PushCommand> items = null;
        ObjectNode rest = mapper.createObjectNode();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken t = p.nextToken();
            if ("items".equals(name)) {
                if (t != JsonToken.START_ARRAY) {
                    errors.add(new FieldError(null, at + ".items", "must be an array"));
                    p.skipChildren();
                    continue;
                }
                items = new ArrayList<>();
                int j = 0;
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    if (++itemCount[0] > maxItems) {
                        throw ApiProblem.invalid(null, "operations", "at most " + maxItems + " push items per transaction");
                    }
                    List<FieldError> itemErrors = new ArrayList<>();
                    PushCommand c = PushRequestReader.readItem(p, body, j, itemErrors);
                    for (FieldError e : itemErrors) {
                        String field = at + ".items[" + j + "]" + (e.field() == null ? "" : "." + e.field());
                        errors.add(new FieldError(null, field, e.message()));
                    }
                    if (c != null) {
                        items.add(c);
                    }
                    j++;
                }
            } else if ("type".equals(name)) {
                if (t != JsonToken.VALUE_STRING) {
                    errors.add(new FieldError(null, at + ".type", "must be \"push\" or \"ack\""));
                    p.skipChildren();
                } else {
                    type = p.getText();
                }
            } else {
                JsonNode v = p.readValueAsTree();
                rest.set(name, v);
            }
        }
        if ("push".equals(type)) {
            rest.fieldNames().forEachRemaining(f -> errors.add(new FieldError(null, at + "." + f, "unknown field")));
            if (items == null) {
                errors.add(new FieldError(null, at + ".items", "is required for a push"));
            }
            return errors.size() == before ? new TransactionOperation.Push(items) : null;
        }
        if ("ack".equals(type)) {
            if (items != null) {
                errors.add(new FieldError(null, at + ".items", "unknown field for an ack"));
            }
            AckCommand ack = ConsumeRequests.ack(rest, null, at + ".", errors);
            return errors.size() == before ? new TransactionOperation.Ack(ack) : null;
        }
        if (type == null) {
            errors.add(new FieldError(null, at + ".type", "is required: \"push\" or \"ack\""));
        } else {
            errors.add(new FieldError(null, at + ".type", "must be \"push\" or \"ack\""));
        }
        return null;
    }
}
