package dev.exactly.db;

/**
 * The database cannot be reached or refused work for a transient reason (connection refused or
 * closed, server shutting down, too many connections). Retrying the same request later is safe:
 * every write path is idempotent. Adapters answer it with 503 and Retry-After.
 */
public class StoreUnavailableException extends RuntimeException {

    /** @param cause the underlying client or server error */
    public StoreUnavailableException(Throwable cause) {
        super("database unavailable: " + cause.getMessage(), cause);
    }

    /**
     * @param message what is unavailable and why
     * @param cause   the underlying failure, or null
     */
    protected StoreUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }

    /** @param message what happened, e.g. no connection could be had before the request's deadline */
    public StoreUnavailableException(String message) {
        super(message);
    }
}
