package dev.exactly.task;

import com.fasterxml.jackson.core.JsonToken;
import dev.exactly.problem.FieldError;
import dev.exactly.push.Names;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Reads and validates the workers' bodies: claim {@code {"queue"?,"types"?,"limit"?,"leaseSeconds"?}},
 * complete {@code {"leaseId","result"?}}, fail {@code {"leaseId","error"}} and extend
 * {@code {"leaseId","leaseSeconds"?}}. Unknown fields and
 * duplicate member names are refused.
 *
 * @throws dev.exactly.problem.ApiProblem (400) naming the field
 */
public final class WorkerRequestReader {

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
    public WorkerRequestReader(TaskConfig config) {
        this.config = config;
    }

    /** A claim body; an empty body claims one task of the default queue. */
    public ClaimCommand claim(byte[] body) {
        if (body.length == 0) {
            return new ClaimCommand(TaskRequestReader.DEFAULT_QUEUE, null, 1, config.defaultLeaseSeconds());
        }
        return TaskJson.parse(body, "{\"queue\",\"types\"?,\"limit\",\"leaseSeconds\"}", p -> {
            List<FieldError> errors = new ArrayList<>();
            String queue = null;
            List<String> types = null;
            Integer limit = null;
            Integer lease = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken t = p.nextToken();
                switch (name) {
                    case "queue" -> queue = TaskJson.string(p, null, name, errors);
                    case "limit" -> limit = TaskJson.integer(p, null, name, 1, config.maxClaimLimit(), errors);
                    case "leaseSeconds" -> lease = TaskJson.integer(p, null, name, 1, config.maxLeaseSeconds(), errors);
                    case "types" -> {
                        if (t == JsonToken.VALUE_NULL) {
                            break;
                        }
                        if (t != JsonToken.START_ARRAY) {
                            errors.add(new FieldError(null, name, "must be an array of task types"));
                            p.skipChildren();
                            break;
                        }
                        types = new ArrayList<>();
                        while (p.nextToken() != JsonToken.END_ARRAY) {
                            String type = p.currentToken() == JsonToken.VALUE_STRING ? p.getText() : null;
                            if (type == null) {
                                errors.add(new FieldError(null, "types[" + types.size() + "]", "must be a string"));
                                p.skipChildren();
                            } else {
                                TaskJson.check(errors, null, "types[" + types.size() + "]",
                                        Names.checkKey(type, TaskRequestReader.MAX_TYPE_BYTES));
                            }
                            types.add(type);
                        }
                        if (types.isEmpty() || types.size() > MAX_TYPES) {
                            errors.add(new FieldError(null, name, "must name 1 to " + MAX_TYPES
                                    + " types (omit it for any type)"));
                        }
                    }
                    default -> {
                        errors.add(new FieldError(null, name, "unknown field"));
                        p.skipChildren();
                    }
                }
            }
            if (queue == null) {
                queue = TaskRequestReader.DEFAULT_QUEUE;
            } else {
                TaskJson.check(errors, null, "queue", Names.checkName(queue));
            }
            if (!errors.isEmpty()) {
                throw TaskJson.invalid("types", errors);
            }
            return new ClaimCommand(queue, types, limit == null ? 1 : limit,
                    lease == null ? config.defaultLeaseSeconds() : lease);
        });
    }

    /** A complete body. */
    public Completion completion(byte[] body) {
        return TaskJson.parse(body, "{\"leaseId\",\"result\"?}", p -> {
            List<FieldError> errors = new ArrayList<>();
            String lease = null;
            byte[] result = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                p.nextToken();
                switch (name) {
                    case "leaseId" -> lease = TaskJson.string(p, null, name, errors);
                    case "result" -> result = TaskJson.raw(p, body).bytes();
                    default -> {
                        errors.add(new FieldError(null, name, "unknown field"));
                        p.skipChildren();
                    }
                }
            }
            UUID leaseId = leaseId(lease, errors);
            if (!errors.isEmpty()) {
                throw TaskJson.invalid("tasks", errors);
            }
            return new Completion(leaseId, result);
        });
    }

    /** A fail body. */
    public Failure failure(byte[] body) {
        return TaskJson.parse(body, "{\"leaseId\",\"error\"}", p -> {
            List<FieldError> errors = new ArrayList<>();
            String lease = null;
            String error = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                p.nextToken();
                switch (name) {
                    case "leaseId" -> lease = TaskJson.string(p, null, name, errors);
                    case "error" -> error = TaskJson.string(p, null, name, errors);
                    default -> {
                        errors.add(new FieldError(null, name, "unknown field"));
                        p.skipChildren();
                    }
                }
            }
            UUID leaseId = leaseId(lease, errors);
            if (error == null) {
                if (errors.stream().noneMatch(e -> "error".equals(e.field()))) {
                    errors.add(new FieldError(null, "error", "is required"));
                }
            } else {
                TaskJson.check(errors, null, "error", Names.checkKey(error, MAX_ERROR_BYTES));
            }
            if (!errors.isEmpty()) {
                throw TaskJson.invalid("tasks", errors);
            }
            return new Failure(leaseId, error);
        });
    }

    /** An extend body {@code {"leaseId","leaseSeconds"?}} (leaseSeconds defaults to the claim default). */
    public Extension extension(byte[] body) {
        return TaskJson.parse(body, "{\"leaseId\",\"leaseSeconds\"?}", p -> {
            List<FieldError> errors = new ArrayList<>();
            String lease = null;
            Integer seconds = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                p.nextToken();
                switch (name) {
                    case "leaseId" -> lease = TaskJson.string(p, null, name, errors);
                    case "leaseSeconds" -> seconds = TaskJson.integer(p, null, name, 1, config.maxLeaseSeconds(), errors);
                    default -> {
                        errors.add(new FieldError(null, name, "unknown field"));
                        p.skipChildren();
                    }
                }
            }
            UUID leaseId = leaseId(lease, errors);
            if (!errors.isEmpty()) {
                throw TaskJson.invalid("tasks", errors);
            }
            return new Extension(leaseId, seconds == null ? config.defaultLeaseSeconds() : seconds);
        });
    }

    /** Parses a lease id; records an error when it is missing or not a UUID. */
    static UUID leaseId(String text, List<FieldError> errors) {
        if (text == null) {
            if (errors.stream().noneMatch(e -> "leaseId".equals(e.field()))) {
                errors.add(new FieldError(null, "leaseId", "is required (the claim's leaseId)"));
            }
            return null;
        }
        try {
            if (text.length() != 36) {
                throw new IllegalArgumentException("not in 8-4-4-4-12 form");
            }
            return UUID.fromString(text);
        } catch (IllegalArgumentException e) {
            errors.add(new FieldError(null, "leaseId", "must be a UUID"));
            return null;
        }
    }
}
