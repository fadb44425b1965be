package dev.exactly.task;

import static dev.exactly.http.ErrorPath.ROOT;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.exactly.http.JsonRequest;
import dev.exactly.problem.ApiProblem;
import dev.exactly.problem.FieldError;
import dev.exactly.naming.Names;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;

/**
 * Reads and validates the workers' bodies: claim {@code {"queue"?,"types"?,"limit"?,"leaseSeconds"?}},
 * complete {@code {"leaseId","result"?}}, fail {@code {"leaseId","error"}} and extend
 * {@code {"leaseId","leaseSeconds"?}}. Unknown fields and
 * duplicate member names are refused.
 *
 * @throws dev.exactly.problem.ApiProblem (400) naming the field
 */
public final class WorkerRequests {

    /** Longest failure error, in UTF-8 bytes. */
    public static final int MAX_ERROR_BYTES = 65_536;
    /** Most types one claim may filter on. */
    public static final int MAX_TYPES = 100;

    /**
     * A completion.
     *
     * @param leaseId the lease the claim handed out
     * @param result  the result's JSON text as sent, or null
     */
    public record Completion(UUID leaseId, byte[] result) {
    }

    /**
     * A failure.
     *
     * @param leaseId the lease the claim handed out
     * @param error   what went wrong
     */
    public record Failure(UUID leaseId, String error) {
    }

    /**
     * A lease extension.
     *
     * @param leaseId      the lease the claim handed out
     * @param leaseSeconds the lease's new length, counted from now, in seconds
     */
    public record Extension(UUID leaseId, int leaseSeconds) {
    }

    private final TaskConfig config;

    /** @param config claim limits */
    public WorkerRequests(TaskConfig config) {
        this.config = config;
    }

    /** A claim body; an empty body claims one task of the default queue. */
    public ClaimCommand claim(byte[] body) {
        if (body.length == 0) {
            return new ClaimCommand(TaskRequests.DEFAULT_QUEUE, null, 1, config.defaultLeaseSeconds());
        }
        return read(body, "{\"queue\",\"types\"?,\"limit\",\"leaseSeconds\"}", (p, errors) -> {
            String queue = null;
            List<String> types = null;
            Integer limit = null;
            Integer lease = null;
            for (String name; (name = JsonRequest.nextMember(p)) != null; ) {
                switch (name) {
                    case "queue" -> queue = JsonRequest.string(p, ROOT, name, errors);
                    case "limit" -> limit = JsonRequest.integer(p, ROOT, name, 1, config.maxClaimLimit(), errors);
                    case "leaseSeconds" -> lease = leaseSeconds(p, errors);
                    case "types" -> types = types(p, errors);
                    default -> JsonRequest.unknown(p, ROOT, name, errors);
                }
            }
            if (queue == null) {
                queue = TaskRequests.DEFAULT_QUEUE;
            } else {
                JsonRequest.check(errors, ROOT, "queue", Names.checkName(queue));
            }
            return new ClaimCommand(queue, types, limit == null ? 1 : limit,
                    lease == null ? config.defaultLeaseSeconds() : lease);
        });
    }

    /** A claim's types filter, the parser on its value; null for JSON null or after errors in it. */
    private static List<String> types(JsonParser p, List<FieldError> errors) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NULL) {
            return null;
        }
        if (t != JsonToken.START_ARRAY) {
            errors.add(ROOT.error("types", "must be an array of task types"));
            p.skipChildren();
            return null;
        }
        List<String> types = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
            String field = "types[" + types.size() + "]";
            String type = p.currentToken() == JsonToken.VALUE_STRING ? p.getText() : null;
            if (type == null) {
                errors.add(ROOT.error(field, "must be a string"));
                p.skipChildren();
            } else {
                JsonRequest.check(errors, ROOT, field, Names.checkKey(type, TaskRequests.MAX_TYPE_BYTES));
            }
            types.add(type);
        }
        if (types.isEmpty() || types.size() > MAX_TYPES) {
            errors.add(ROOT.error("types", "must name 1 to " + MAX_TYPES + " types (omit it for any type)"));
        }
        return types;
    }

    /** A complete body. */
    public Completion completion(byte[] body) {
        return leased(body, "{\"leaseId\",\"result\"?}", "result",
                (p, errors) -> JsonRequest.checkedRaw(p, body).bytes(), (result, errors) -> { }, Completion::new);
    }

    /** A fail body. */
    public Failure failure(byte[] body) {
        return leased(body, "{\"leaseId\",\"error\"}", "error",
                (p, errors) -> JsonRequest.string(p, ROOT, "error", errors),
                (error, errors) -> {
                    if (error == null) {
                        JsonRequest.required(errors, 0, ROOT, "error", "is required");
                    } else {
                        JsonRequest.check(errors, ROOT, "error", Names.checkKey(error, MAX_ERROR_BYTES));
                    }
                }, Failure::new);
    }

    /** An extend body {@code {"leaseId","leaseSeconds"?}} (leaseSeconds defaults to the claim default). */
    public Extension extension(byte[] body) {
        return leased(body, "{\"leaseId\",\"leaseSeconds\"?}", "leaseSeconds", this::leaseSeconds,
                (seconds, errors) -> { },
                (lease, seconds) -> new Extension(lease, seconds == null ? config.defaultLeaseSeconds() : seconds));
    }

    private Integer leaseSeconds(JsonParser p, List<FieldError> errors) throws IOException {
        return JsonRequest.integer(p, ROOT, "leaseSeconds", 1, config.maxLeaseSeconds(), errors);
    }

    /** Reads one member of a worker's body, the parser on its value. */
    @FunctionalInterface
    private interface Member<V> {
        V read(JsonParser p, List<FieldError> errors) throws IOException;
    }

    /** Reads a worker's body into a {@code T}, adding errors; the result is ignored when there are any. */
    @FunctionalInterface
    private interface Reader<T> {
        T read(JsonParser p, List<FieldError> errors) throws IOException;
    }

    /**
     * A body of a leaseId and one other member: {@code other} is read by {@code member}, then
     * checked by {@code check} once the lease id has been.
     */
    private static <V, T> T leased(byte[] body, String shape, String other, Member<V> member,
                                   BiConsumer<V, List<FieldError>> check, BiFunction<UUID, V, T> build) {
        return read(body, shape, (p, errors) -> {
            String lease = null;
            V value = null;
            for (String name; (name = JsonRequest.nextMember(p)) != null; ) {
                if ("leaseId".equals(name)) {
                    lease = JsonRequest.string(p, ROOT, name, errors);
                } else if (other.equals(name)) {
                    value = member.read(p, errors);
                } else {
                    JsonRequest.unknown(p, ROOT, name, errors);
                }
            }
            UUID leaseId = leaseId(lease, errors);
            check.accept(value, errors);
            return build.apply(leaseId, value);
        });
    }

    /** Reads a body that must be one JSON object; refuses it when {@code reader} added errors. */
    private static <T> T read(byte[] body, String shape, Reader<T> reader) {
        return JsonRequest.read(body, "the body must be a JSON object: " + shape, p -> {
            List<FieldError> errors = new ArrayList<>();
            T out = reader.read(p, errors);
            if (!errors.isEmpty()) {
                throw ApiProblem.invalid(errors);
            }
            return out;
        });
    }

    /**
     * A lease id given as a query parameter.
     *
     * @param text the parameter
     * @return the lease id
     * @throws ApiProblem 400 when it is not a UUID
     */
    public static UUID leaseParam(String text) {
        List<FieldError> errors = new ArrayList<>();
        UUID id = leaseId(text, errors);
        if (!errors.isEmpty()) {
            throw ApiProblem.invalid(errors);
        }
        return id;
    }

    /** Parses a lease id; records an error when it is missing or not a UUID. */
    static UUID leaseId(String text, List<FieldError> errors) {
        if (text == null) {
            JsonRequest.required(errors, 0, ROOT, "leaseId", "is required (the claim's leaseId)");
            return null;
        }
        UUID id = JsonRequest.uuid(text);
        if (id == null) {
            errors.add(ROOT.error("leaseId", "must be a UUID"));
        }
        return id;
    }
}
