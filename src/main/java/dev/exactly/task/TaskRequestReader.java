package dev.exactly.task;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.exactly.problem.ApiProblem;
import dev.exactly.problem.FieldError;
import dev.exactly.push.Names;
import java.io.IOException;
import java.time.DateTimeException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads enqueue bodies: one task, {@code {"queue"?,"id"?,"type","data","autoDedupe"?,
 * "maxRetries"?,"retryDelaySeconds"?,"priority"?,"runAt"?}}, or a batch {@code {"tasks":[...]}},
 * and validates every task before anything is written. The data is kept as the exact bytes sent;
 * with autoDedupe its {@link DedupeKeys} key is computed here, so a value that cannot be
 * canonicalised is refused as bad input. Unknown fields and duplicate member names are refused.
 *
 * @throws ApiProblem (400) naming the task's index (batch) and the field
 */
public final class TaskRequestReader {

    /** The queue a task goes to when it names none. */
    public static final String DEFAULT_QUEUE = "default";
    /** Longest task type, in UTF-8 bytes. */
    public static final int MAX_TYPE_BYTES = 256;
    /** Most retries a task may ask for. */
    public static final int MAX_RETRIES = 1000;
    /** Longest retry delay, in seconds (one year). */
    public static final int MAX_RETRY_DELAY_SECONDS = 31_536_000;
    /** Defaults of omitted fields. */
    public static final int DEFAULT_MAX_RETRIES = 3;

    private static final int MAX_REPORTED_ERRORS = 50;
    private static final OffsetDateTime EARLIEST = OffsetDateTime.parse("1970-01-01T00:00:00Z");
    private static final OffsetDateTime LATEST = OffsetDateTime.parse("9999-12-31T23:59:59Z");

    /** One task body. */
    public NewTask one(byte[] body) {
        return TaskJson.parse(body, "a task", p -> {
            List<FieldError> errors = new ArrayList<>();
            NewTask t = task(p, body, null, errors);
            if (!errors.isEmpty()) {
                throw TaskJson.invalid("tasks", errors);
            }
            return t;
        });
    }

    /**
     * A batch body.
     *
     * @param maxItems most tasks allowed
     * @return the tasks, in request order (possibly empty)
     */
    public List<NewTask> batch(byte[] body, int maxItems) {
        return TaskJson.parse(body, "{\"tasks\":[...]}", p -> {
            List<FieldError> errors = new ArrayList<>();
            List<NewTask> tasks = new ArrayList<>();
            boolean sawTasks = false;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken t = p.nextToken();
                if (!"tasks".equals(name)) {
                    errors.add(new FieldError(null, name, "unknown field"));
                    p.skipChildren();
                    continue;
                }
                sawTasks = true;
                if (t != JsonToken.START_ARRAY) {
                    errors.add(new FieldError(null, "tasks", "must be an array"));
                    p.skipChildren();
                    continue;
                }
                int index = 0;
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    if (index >= maxItems) {
                        throw ApiProblem.invalid(null, "tasks", "at most " + maxItems + " tasks per request");
                    }
                    if (p.currentToken() != JsonToken.START_OBJECT) {
                        errors.add(new FieldError(index, null, "a task must be a JSON object"));
                        p.skipChildren();
                    } else {
                        NewTask task = task(p, body, index, errors);
                        if (task != null) {
                            tasks.add(task);
                        }
                    }
                    index++;
                    if (errors.size() >= MAX_REPORTED_ERRORS) {
                        throw TaskJson.invalid("tasks", errors);
                    }
                }
            }
            if (!sawTasks) {
                errors.add(new FieldError(null, "tasks", "is required"));
            }
            if (!errors.isEmpty()) {
                throw TaskJson.invalid("tasks", errors);
            }
            return tasks;
        });
    }

    /** Reads one task object (parser on its START_OBJECT); null when it had errors. */
    private static NewTask task(JsonParser p, byte[] body, Integer index, List<FieldError> errors) throws IOException {
        int before = errors.size();
        String queue = null;
        String id = null;
        String type = null;
        TaskJson.Raw data = null;
        Boolean autoDedupe = null;
        Integer maxRetries = null;
        Integer retryDelay = null;
        Integer priority = null;
        String runAtText = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            p.nextToken();
            switch (name) {
                case "queue" -> queue = TaskJson.string(p, index, name, errors);
                case "id" -> id = TaskJson.string(p, index, name, errors);
                case "type" -> type = TaskJson.string(p, index, name, errors);
                case "data" -> data = TaskJson.raw(p, body);
                case "autoDedupe" -> autoDedupe = TaskJson.bool(p, index, name, errors);
                case "maxRetries" -> maxRetries = TaskJson.integer(p, index, name, 0, MAX_RETRIES, errors);
                case "retryDelaySeconds" ->
                        retryDelay = TaskJson.integer(p, index, name, 0, MAX_RETRY_DELAY_SECONDS, errors);
                case "priority" -> priority = TaskJson.integer(p, index, name, Integer.MIN_VALUE,
                        Integer.MAX_VALUE, errors);
                case "runAt" -> runAtText = TaskJson.string(p, index, name, errors);
                default -> {
                    errors.add(new FieldError(index, name, "unknown field"));
                    p.skipChildren();
                }
            }
        }
        if (queue == null) {
            queue = DEFAULT_QUEUE;
        } else {
            TaskJson.check(errors, index, "queue", Names.checkName(queue));
        }
        if (id != null) {
            TaskJson.check(errors, index, "id", Names.checkName(id));
        }
        if (type == null) {
            addUnlessReported(errors, before, index, "type", "is required");
        } else {
            TaskJson.check(errors, index, "type", Names.checkKey(type, MAX_TYPE_BYTES));
        }
        if (data == null) {
            errors.add(new FieldError(index, "data", "is required (any JSON value)"));
        }
        OffsetDateTime runAt = runAtText == null ? null : runAt(runAtText, index, errors);
        byte[] key = null;
        if (Boolean.TRUE.equals(autoDedupe) && data != null && type != null && errors.size() == before) {
            key = dedupeKey(type, data, index, errors);
        }
        if (errors.size() != before) {
            return null;
        }
        return new NewTask(queue, id, type, data.bytes(), key, priority == null ? 0 : priority, runAt,
                maxRetries == null ? DEFAULT_MAX_RETRIES : maxRetries, retryDelay == null ? 0 : retryDelay);
    }

    private static byte[] dedupeKey(String type, TaskJson.Raw data, Integer index, List<FieldError> errors) {
        if (!data.wellFormedStrings()) {
            errors.add(new FieldError(index, "data", "with autoDedupe, strings must be well-formed Unicode "
                    + "(no lone surrogate escapes; RFC 8785 needs I-JSON)"));
            return null;
        }
        try {
            return DedupeKeys.key(type, DedupeKeys.canonical(data.bytes()));
        } catch (IOException | RuntimeException e) {
            errors.add(new FieldError(index, "data", "with autoDedupe, must have an RFC 8785 canonical form: "
                    + e.getMessage()));
            return null;
        }
    }

    private static OffsetDateTime runAt(String text, Integer index, List<FieldError> errors) {
        try {
            OffsetDateTime t = OffsetDateTime.parse(text);
            if (t.isBefore(EARLIEST) || t.isAfter(LATEST)) {
                errors.add(new FieldError(index, "runAt", "must lie between 1970 and 9999"));
                return null;
            }
            return t;
        } catch (DateTimeException e) {
            errors.add(new FieldError(index, "runAt",
                    "must be an RFC 3339 date-time with an offset, e.g. 2030-01-01T09:00:00Z"));
            return null;
        }
    }

    private static void addUnlessReported(List<FieldError> errors, int from, Integer index, String field, String msg) {
        for (int i = from; i < errors.size(); i++) {
            if (field.equals(errors.get(i).field())) {
                return;
            }
        }
        errors.add(new FieldError(index, field, msg));
    }
}
