package dev.exactly.problem;

import java.util.List;

/**
 * Thrown by adapters to answer with a problem details document (RFC 9457). Nothing has been
 * written when it is thrown for bad input.
 */
public class ApiProblem extends RuntimeException {

    private final int status;
    private final String kind;
    private final String title;
    private final List<FieldError> errors;

    /**
     * @param status HTTP status (4xx or 5xx)
     * @param kind   the last segment of the problem type URI, e.g. "invalid-request"
     * @param title  short summary of the kind
     * @param detail this occurrence
     * @param errors per-field reasons, may be empty
     */
    public ApiProblem(int status, String kind, String title, String detail, List<FieldError> errors) {
        super(detail);
        this.status = status;
        this.kind = kind;
        this.title = title;
        this.errors = errors;
    }

    /** 400 invalid-request naming the offending fields; an indexed error is an item of {@code items}. */
    public static ApiProblem invalid(List<FieldError> errors) {
        return invalid("items", errors);
    }

    /**
     * 400 invalid-request naming the offending fields.
     *
     * @param envelope the body's array that {@link FieldError#index()} counts in, e.g. "tasks": the
     *                 detail names the first error as {@code tasks[3].type}
     * @param errors   at least one
     */
    public static ApiProblem invalid(String envelope, List<FieldError> errors) {
        String detail = errors.size() == 1 ? describe(envelope, errors.get(0))
                : errors.size() + " fields are invalid; the first: " + describe(envelope, errors.get(0));
        return new ApiProblem(400, "invalid-request", "Invalid request", detail, errors);
    }

    /** 400 invalid-request for one field. */
    public static ApiProblem invalid(Integer index, String field, String message) {
        return invalid(List.of(new FieldError(index, field, message)));
    }

    /**
     * 422 payload-mismatch: an item repeats an idempotency key already stored with another payload,
     * in a queue whose payloadMismatch option is "reject"; nothing was written for it. (The IETF
     * httpapi draft "The Idempotency-Key HTTP Header Field", section 2.7, answers a key reused
     * with another payload with 422.)
     *
     * @param envelope      the body's array the index counts in, e.g. "items", or null for a body
     *                      that is the item itself (a webhook delivery)
     * @param index         the item's position, or null with a null envelope
     * @param transactionId the repeated key
     * @param queue         its queue
     * @param partition     its partition
     * @param original      the message stored under it (the zero UUID when its data was purged)
     */
    public static ApiProblem payloadMismatch(String envelope, Integer index, String transactionId, String queue,
                                             String partition, java.util.UUID original) {
        return payloadMismatch(envelope, index, transactionId, queue, partition, original, null);
    }

    /**
     * 422 payload-mismatch, as {@link #payloadMismatch(String, Integer, String, String, String, java.util.UUID)},
     * for an item that may repeat an earlier item of the same request.
     *
     * @param storedBy the index (in {@code envelope}) of the earlier item of the same request that
     *                 stores the original now, or null when the original was stored before
     */
    public static ApiProblem payloadMismatch(String envelope, Integer index, String transactionId, String queue,
                                             String partition, java.util.UUID original, Integer storedBy) {
        String where = envelope == null ? "" : envelope + "[" + index + "]: ";
        String stored = storedBy == null
                ? "is already stored in queue " + queue + ", partition " + partition + " (message " + original + ")"
                : "repeats " + envelope + "[" + storedBy + "] of this request, which stores it in queue " + queue
                        + ", partition " + partition + " (message " + original + "),";
        String detail = where + "transactionId '" + transactionId + "' " + stored + " with another payload; nothing was "
                + "written for " + (envelope == null ? "it" : "this item") + " (the queue's payloadMismatch is reject)";
        return new ApiProblem(422, "payload-mismatch", "Payload mismatch", detail,
                List.of(new FieldError(index, "payload", "differs from the payload stored under this transactionId")));
    }

    /** 404 not-found. */
    public static ApiProblem notFound(String detail) {
        return new ApiProblem(404, "not-found", "Not found", detail, List.of());
    }

    /** 413 payload-too-large. */
    public static ApiProblem tooLarge(String detail) {
        return new ApiProblem(413, "payload-too-large", "Payload too large", detail, List.of());
    }

    /** 415: a body in a form the API does not read (e.g. a compressed Content-Encoding). */
    public static ApiProblem unsupportedMediaType(String detail) {
        return new ApiProblem(415, "unsupported-media-type", "Unsupported media type", detail, List.of());
    }

    private static String describe(String envelope, FieldError e) {
        StringBuilder b = new StringBuilder();
        if (e.index() != null) {
            b.append(envelope).append('[').append(e.index()).append(']');
        }
        if (e.field() != null) {
            b.append(b.length() > 0 ? "." : "").append(e.field());
        }
        return (b.length() > 0 ? b + ": " : "") + e.message();
    }

    /** The problem document to send. */
    public Problem toProblem() {
        return new Problem("/problems/" + kind, title, status, getMessage(), errors.isEmpty() ? null : errors);
    }

    /** HTTP status. */
    public int status() {
        return status;
    }
}
