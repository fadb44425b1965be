package dev.exactly.db;

import io.vertx.pgclient.PgException;
import java.io.IOException;
import java.net.ConnectException;
import java.util.function.Function;

/**
 * Classifies database client failures. Transient unavailability (no connection, a closed
 * connection, the server shutting down or refusing connections, SQLSTATE classes 08 and 57P,
 * 53300) becomes {@link StoreUnavailableException}; anything else passes through unchanged.
 */
public final class DatabaseErrors {

    private DatabaseErrors() {
    }

    /** A mapper for {@code Uni.onFailure().transform(...)}. */
    public static final Function<Throwable, Throwable> CLASSIFY = DatabaseErrors::classify;

    /** @return a StoreUnavailableException wrapping t if t is transient unavailability, else t */
    public static Throwable classify(Throwable t) {
        return isUnavailable(t) ? new StoreUnavailableException(t) : t;
    }

    /**
     * True when t (or a cause) says the connection a statement ran on was lost: closed by the
     * server or a proxy (idle timeout, pg_terminate_backend, restart). Whether the statement
     * committed is then unknown, so only an idempotent statement may be retried.
     */
    public static boolean isConnectionLost(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof io.vertx.sqlclient.ClosedConnectionException) {
                return true;
            }
            if (c instanceof PgException pg) {
                String state = pg.getSqlState();
                return state != null && (state.equals("57P01") || state.equals("57P02") || state.startsWith("08"));
            }
            String m = c.getMessage();
            if (m != null && m.contains("Connection closed")) {
                return true;
            }
        }
        return false;
    }

    /** True when t (or a cause) says the database cannot be reached right now. */
    public static boolean isUnavailable(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof StoreUnavailableException || c instanceof ConnectException
                    || c instanceof IOException || c instanceof io.vertx.sqlclient.ClosedConnectionException) {
                return true;
            }
            if (c instanceof PgException pg) {
                String state = pg.getSqlState();
                return state != null && (state.startsWith("08") || state.startsWith("57P") || state.equals("53300"));
            }
            String m = c.getMessage();
            if (m != null && (m.contains("Connection refused") || m.contains("Connection closed")
                    || m.contains("Failed to read any response from the server") || m.contains("Timeout"))) {
                return c.getClass().getName().startsWith("io.vertx") || c.getClass().getName().startsWith("io.netty");
            }
        }
        return false;
    }
}
