package dev.exactly.db;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * Per-connection limits of every PostgreSQL session the service opens, so that one stuck
 * partition (a row lock held too long, a runaway statement, a transaction left open) cannot
 * hold a pooled connection forever. Values are milliseconds; 0 turns a limit off.
 *
 * <p>They reach the server as startup parameters of each pooled connection
 * ({@code quarkus.datasource.reactive.additional-properties.*} in application.properties refers
 * to these keys), so they cost no round trip. Behind a pooler that refuses unknown startup
 * parameters (PgBouncer), list them in its {@code ignore_startup_parameters} and set them on the
 * role instead ({@code ALTER ROLE ... SET lock_timeout = ...}). Flyway's migration connection
 * does not carry them. An exceeded limit answers 503 {@code /problems/database-timeout} with
 * Retry-After (see {@link StoreTimeoutException}). {@link DatabaseSessionLimits} checks and
 * logs them at start-up.
 */
@ConfigMapping(prefix = "exactly.database")
public interface DatabaseSessionConfig {

    /**
     * {@code statement_timeout}: the longest one statement may run, in milliseconds. A push is
     * one statement, so this bounds a push's time in the database.
     */
    @WithDefault("10000")
    int statementTimeoutMs();

    /**
     * {@code lock_timeout}: the longest one lock wait may last, in milliseconds, e.g. a push
     * waiting for its partition's row lock. Keep it below the statement timeout so that a
     * blocked partition answers as a lock timeout.
     */
    @WithDefault("5000")
    int lockTimeoutMs();

    /**
     * {@code idle_in_transaction_session_timeout}: the longest a session may sit idle inside an
     * open transaction, in milliseconds; the server then ends the session and rolls back.
     */
    @WithDefault("30000")
    int idleInTransactionTimeoutMs();

    /**
     * Not a session parameter: the longest the readiness check ({@code /q/health/ready}, check
     * "database", {@link DatabaseReadiness}) waits for the database to answer {@code SELECT 1}, in
     * milliseconds, before it reports DOWN; keep it below the probe's own timeout (Kubernetes: 1 s
     * by default). At least 1.
     */
    @WithDefault("800")
    int readinessTimeoutMs();
}
