package dev.exactly.db;

/**
 * A statement ran past {@code statement_timeout} (SQLSTATE 57014) or waited for a lock past
 * {@code lock_timeout} (SQLSTATE 55P03), e.g. behind a partition row lock held too long. The
 * server rolled the statement's transaction back, so nothing of it was written and retrying the
 * same request is safe. Adapters answer it with 503, Retry-After and the problem type
 * {@code /problems/database-timeout}. The limits are set per connection from
 * {@link DatabaseSessionConfig}.
 */
public class StoreTimeoutException extends StoreUnavailableException {

    /** @param cause the server's error (a PgException with SQLSTATE 57014 or 55P03) */
    public StoreTimeoutException(Throwable cause) {
        super(cause);
    }

    /** @param message what happened */
    protected StoreTimeoutException(String message) {
        super(message);
    }
}
