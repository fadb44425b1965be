package dev.exactly.task;

import com.fasterxml.jackson.core.JsonParser;
import dev.exactly.http.ArrayEnvelope;
import dev.exactly.http.ErrorPath;
import dev.exactly.http.JsonRequest;
import dev.exactly.problem.ApiProblem;
import dev.exactly.problem.FieldError;
import dev.exactly.naming.Names;
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
public final class TaskRequests {

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

    /** The state labels a listing may filter on. */
    public static final List<String> STATES =
            List.of("queued", "scheduled", "running", "retrying", "completed", "dead");

    private static final OffsetDateTime EARLIEST = OffsetDateTime.parse("1970-01-01T00:00:00Z");
    private static final OffsetDateTime LATEST = OffsetDateTime.parse("9999-12-31T23:59:59Z");

    /**
     * A listing's query.
     *
     * @param queue the queue
     * @param state one of {@link #STATES}, or null for all
     * @param after the previous page's cursor (0 for the first page)
     * @param limit most tasks on the page
     */
    public record Listing(String queue, String state, long after, int limit) {
    }

    /**
     * Reads a listing's query parameters (the queue first, then every other one).
     *
     * @param maxPageSize the largest limit allowed
     * @return the listing; limit 100 when absent
     * @throws ApiProblem 400 naming the bad parameters
     */
    public static Listing listing(String queue, String state, String limit, String after, int maxPageSize) {
        String q = queue(queue);
        List<FieldError> errors = new ArrayList<>();
        if (state != null && !STATES.contains(state)) {
            errors.add(ErrorPath.ROOT.error("state", "must be one of " + String.join(", ", STATES)));
        }
        int size = limit == null ? 100 : (int) wholeNumber(limit, 1, maxPageSize, "limit",
                "must be a whole number from 1 to " + maxPageSize, errors);
        long cursor = after == null ? 0
                : wholeNumber(after, 1, Long.MAX_VALUE, "after", "must be the next cursor of an earlier page", errors);
        if (!errors.isEmpty()) {
            throw ApiProblem.invalid(errors);
        }
        return new Listing(q, state, cursor, size);
    }

    private static long wholeNumber(String text, long min, long max, String field, String message,
                                    List<FieldError> errors) {
        try {
            long v = Long.parseLong(text);
            if (v >= min && v <= max) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        errors.add(ErrorPath.ROOT.error(field, message));
        return min;
    }

    /**
     * A queue named by a query parameter.
     *
     * @param queue the parameter, or null for {@link #DEFAULT_QUEUE}
     * @return the queue
     * @throws ApiProblem 400 for an invalid name
     */
    public static String queue(String queue) {
        if (queue == null) {
            return DEFAULT_QUEUE;
        }
        refuse("queue", Names.checkName(queue));
        return queue;
    }

    /**
     * Checks a task id named by the path.
     *
     * @throws ApiProblem 400 for an invalid id
     */
    public static void id(String id) {
        refuse("id", Names.checkName(id));
    }

    private static void refuse(String field, String why) {
        if (why != null) {
            throw ApiProblem.invalid(null, field, why);
        }
    }

    /** One task body. */
    public NewTask one(byte[] body) {
        return JsonRequest.read(body, "the body must be a JSON object: a task", p -> {
            List<FieldError> errors = new ArrayList<>();
            NewTask t = task(p, body, ErrorPath.ROOT, errors);
            if (!errors.isEmpty()) {
                throw ApiProblem.invalid("tasks", errors);
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
        ArrayEnvelope envelope = ArrayEnvelope.of("tasks", maxItems, "tasks per request");
        return JsonRequest.read(body, "the body must be a JSON object: {\"tasks\":[...]}", p -> {
            // unlike a push, a task batch's item errors are refused before content after the object
            List<FieldError> errors = new ArrayList<>();
            List<NewTask> tasks = envelope.read(p, errors, (q, at, e) ->
                    JsonRequest.object(q, at, "a task must be a JSON object", e) ? task(q, body, at, e) : null);
            if (!errors.isEmpty()) {
                throw envelope.invalid(errors);
            }
            return tasks;
        });
    }

    /** Reads one task object (parser on its START_OBJECT); null when it had errors. */
    private static NewTask task(JsonParser p, byte[] body, ErrorPath at, List<FieldError> errors) throws IOException {
        int before = errors.size();
        String queue = null;
        String id = null;
        String type = null;
        JsonRequest.Raw data = null;
        Boolean autoDedupe = null;
        Integer maxRetries = null;
        Integer retryDelay = null;
        Integer priority = null;
        String runAtText = null;
        for (String name; (name = JsonRequest.nextMember(p)) != null; ) {
            switch (name) {
                case "queue" -> queue = JsonRequest.string(p, at, name, errors);
                case "id" -> id = JsonRequest.string(p, at, name, errors);
                case "type" -> type = JsonRequest.string(p, at, name, errors);
                case "data" -> data = JsonRequest.checkedRaw(p, body);
                case "autoDedupe" -> autoDedupe = JsonRequest.bool(p, at, name, errors);
                case "maxRetries" -> maxRetries = JsonRequest.integer(p, at, name, 0, MAX_RETRIES, errors);
                case "retryDelaySeconds" ->
                        retryDelay = JsonRequest.integer(p, at, name, 0, MAX_RETRY_DELAY_SECONDS, errors);
                case "priority" -> priority = JsonRequest.integer(p, at, name, Integer.MIN_VALUE,
                        Integer.MAX_VALUE, errors);
                case "runAt" -> runAtText = JsonRequest.string(p, at, name, errors);
                default -> JsonRequest.unknown(p, at, name, errors);
            }
        }
        if (queue == null) {
            queue = DEFAULT_QUEUE;
        } else {
            JsonRequest.check(errors, at, "queue", Names.checkName(queue));
        }
        if (id != null) {
            JsonRequest.check(errors, at, "id", Names.checkName(id));
        }
        if (type == null) {
            JsonRequest.required(errors, before, at, "type", "is required");
        } else {
            JsonRequest.check(errors, at, "type", Names.checkKey(type, MAX_TYPE_BYTES));
        }
        if (data == null) {
            errors.add(at.error("data", "is required (any JSON value)"));
        }
        OffsetDateTime runAt = runAtText == null ? null : runAt(runAtText, at, errors);
        byte[] key = null;
        if (Boolean.TRUE.equals(autoDedupe) && data != null && type != null && errors.size() == before) {
            key = dedupeKey(type, data, at, errors);
        }
        if (errors.size() != before) {
            return null;
        }
        return new NewTask(queue, id, type, data.bytes(), key, priority == null ? 0 : priority, runAt,
                maxRetries == null ? DEFAULT_MAX_RETRIES : maxRetries, retryDelay == null ? 0 : retryDelay,
                DedupeKeys.payloadDigest(type, data.bytes()));
    }

    private static byte[] dedupeKey(String type, JsonRequest.Raw data, ErrorPath at, List<FieldError> errors) {
        if (!data.wellFormedStrings()) {
            errors.add(at.error("data", "with autoDedupe, strings must be well-formed Unicode "
                    + "(no lone surrogate escapes; RFC 8785 needs I-JSON)"));
            return null;
        }
        try {
            return DedupeKeys.key(type, DedupeKeys.canonical(data.bytes()));
        } catch (IOException e) {
            // DedupeKeys.canonical's one refusal: RFC 8785 writes numbers as IEEE 754 doubles
            // (section 3.2.2.3), and the library reports 1e400 as "NaN/Infinity not permitted"
            errors.add(at.error("data", "with autoDedupe, every number must fit an IEEE 754 double "
                    + "(magnitude below about 1.8e308), as RFC 8785's canonical form needs"));
            return null;
        } catch (RuntimeException e) {
            errors.add(at.error("data", "with autoDedupe, must have an RFC 8785 canonical form: "
                    + e.getMessage()));
            return null;
        }
    }

    private static OffsetDateTime runAt(String text, ErrorPath at, List<FieldError> errors) {
        try {
            OffsetDateTime t = OffsetDateTime.parse(text);
            if (t.isBefore(EARLIEST) || t.isAfter(LATEST)) {
                errors.add(at.error("runAt", "must lie between 1970 and 9999"));
                return null;
            }
            return t;
        } catch (DateTimeException e) {
            errors.add(at.error("runAt",
                    "must be an RFC 3339 date-time with an offset, e.g. 2030-01-01T09:00:00Z"));
            return null;
        }
    }
}
