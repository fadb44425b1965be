package dev.exactly.db;

/**
 * Database work for a request did not finish before the request's deadline
 * ({@code exactly.request.deadline-ms}, {@link RequestDeadline}): the request is answered now and
 * the work is abandoned, its statement cancelled on the server. Unlike a statement or lock
 * timeout, whether it took effect is unknown (a commit may have been under way); every write path
 * answers a retry of the same request exactly, so retrying is safe. Adapters answer it like a
 * {@link StoreTimeoutException}: 503, Retry-After, {@code /problems/database-timeout}.
 */
public class DeadlineExceededException extends StoreTimeoutException {

    /** @param message what was under way when the deadline came */
    public DeadlineExceededException(String message) {
        super(message);
    }
}
