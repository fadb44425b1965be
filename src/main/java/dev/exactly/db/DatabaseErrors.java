package dev.exactly.db;

import io.vertx.pgclient.PgException;
import java.io.IOException;
import java.net.ConnectException;
import java.sql.SQLException;
import java.util.function.Function;

/**
 * Classifies database client failures (SQLSTATE codes: PostgreSQL manual, appendix A).
 *
 * <ul>
 * <li>A statement or lock timeout (57014 query_canceled, 55P03 lock_not_available) becomes
 *     {@link StoreTimeoutException}: the server rolled the statement back.</li>
 * <li>Transient unavailability becomes {@link StoreUnavailableException}: no connection, a closed
 *     connection, a TLS handshake that failed (Vert.x reports "SSL handshake failed", without its
 *     cause, e.g. a server certificate the trust store does not know), the server shutting down,
 *     starting up or refusing connections (classes 08 and 57P), insufficient resources (class 53, e.g. 53300 too many connections), and a transaction
 *     the server aborted to resolve a conflict (40001 serialization_failure, 40P01
 *     deadlock_detected), which also wrote nothing.</li>
 * <li>A database without this release's schema becomes {@link NotMigratedException}: 3F000
 *     invalid_schema_name, or 42P01 undefined_table / 42883 undefined_function naming an object of
 *     the exactly schema (the migrate step has not run).</li>
 * <li>Anything else passes through unchanged (a 500: a bug, not a fault to retry).</li>
 * </ul>
 */
public final class DatabaseErrors {

    private DatabaseErrors() {
    }

    /** A mapper for {@code Uni.onFailure().transform(...)}. */
    public static final Function<Throwable, Throwable> CLASSIFY = DatabaseErrors::classify;

    /**
     * @return a StoreTimeoutException wrapping t if t is a statement or lock timeout, a
     *         StoreUnavailableException if t is transient unavailability, else t itself
     */
    public static Throwable classify(Throwable t) {
        if (t instanceof StoreUnavailableException) {
            return t;
        }
        if (isTimeout(t)) {
            return new StoreTimeoutException(t);
        }
        if (isNotMigrated(t)) {
            return new NotMigratedException(t);
        }
        return isUnavailable(t) ? new StoreUnavailableException(t) : t;
    }

    /**
     * True when the server says the schema of this release is missing: 3F000 (no schema
     * "exactly"), or 42P01 / 42883 (no such table or function) for a name in that schema.
     */
    public static boolean isNotMigrated(Throwable t) {
        String state = sqlState(t);
        if ("3F000".equals(state)) {
            return true;
        }
        if ("42P01".equals(state) || "42883".equals(state)) {
            for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
                if (c instanceof PgException pg && pg.getErrorMessage() != null && pg.getErrorMessage().contains("exactly.")) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The SQLSTATE of the first PgException in t's cause chain, or null. */
    public static String sqlState(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof PgException pg) {
                return pg.getSqlState();
            }
        }
        return null;
    }

    /**
     * True when the server aborted t's transaction to resolve a conflict with another one (40P01
     * deadlock_detected, 40001 serialization_failure): it wrote nothing, and running the whole
     * transaction again is the remedy.
     */
    public static boolean isConflictAbort(Throwable t) {
        String state = sqlState(t);
        return "40P01".equals(state) || "40001".equals(state);
    }

    /**
     * True when t (or a cause) is the server cancelling a statement that ran past
     * statement_timeout (57014) or gave up a lock wait past lock_timeout (55P03).
     */
    public static boolean isTimeout(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof StoreTimeoutException) {
                return true;
            }
        }
        String state = sqlState(t);
        return "57014".equals(state) || "55P03".equals(state);
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
            if (isClosedConnectionMessage(c.getMessage())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Vert.x reports some connection losses only by message: a pooled connection that closed
     * under the pool ("Connection is not active now, current status: CLOSED", the statement was
     * never sent) or while a statement was on it; an I/O error of a reset connection likewise.
     */
    private static boolean isClosedConnectionMessage(String m) {
        return m != null && (m.contains("Connection closed") || m.contains("Connection is not active now")
                || m.contains("Failed to read any response from the server") || m.contains("Connection reset")
                || m.contains("Broken pipe"));
    }

    /**
     * SQLSTATEs of a transient refusal (PostgreSQL, Appendix A): connection exceptions (class 08),
     * operator intervention such as a shutdown or crash (57P), insufficient resources (53), and a
     * serialization failure or deadlock (40001, 40P01).
     */
    private static boolean isTransientState(String state) {
        return state != null && (state.startsWith("08") || state.startsWith("57P") || state.startsWith("53")
                || state.equals("40001") || state.equals("40P01"));
    }

    /** True when t (or a cause) says the database cannot do the work right now, for a transient reason. */
    public static boolean isUnavailable(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof StoreUnavailableException || c instanceof ConnectException
                    || c instanceof IOException || c instanceof io.vertx.sqlclient.ClosedConnectionException) {
                return true;
            }
            if (c instanceof PgException pg) {
                return isTransientState(pg.getSqlState());
            }
            if (c instanceof SQLException jdbc && jdbc.getSQLState() != null) {
                // Flyway's JDBC driver (POST /api/v1/admin/migrate): e.g. 08003 "This connection
                // has been closed", 08001 when the server cannot be reached
                return isTransientState(jdbc.getSQLState());
            }
            String m = c.getMessage();
            if (m != null && (m.contains("Connection refused") || isClosedConnectionMessage(m) || m.contains("Timeout")
                    || m.contains("SSL handshake failed"))) {
                return c.getClass().getName().startsWith("io.vertx") || c.getClass().getName().startsWith("io.netty");
            }
        }
        return false;
    }
}
