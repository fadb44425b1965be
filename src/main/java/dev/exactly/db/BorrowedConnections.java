package dev.exactly.db;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import java.util.function.Function;
import org.jboss.logging.Logger;

/**
 * Borrows a connection from the pool with an exception handler set on it. The reactive client
 * (vertx-sql-client 4.5, {@code SqlConnectionBase.handleException}) prints a full stack trace to
 * System.err when a borrowed connection without an exception handler loses its socket (the
 * database restarts, its backend is killed); the operation's Uni fails anyway, so the stack trace
 * is only noise in the operators' logs during an outage. Here the failure is logged as one line
 * at DEBUG instead.
 */
public final class BorrowedConnections {

    private static final Logger LOG = Logger.getLogger(BorrowedConnections.class);

    private BorrowedConnections() {
    }

    /**
     * {@link Pool#withConnection(Function)}, the connection's failures outside its operations
     * logged at DEBUG instead of printed.
     *
     * @param work the operations to run on the borrowed connection
     * @return the work's result; the Uni fails as the work's Uni fails (or when no connection
     *         can be borrowed)
     */
    public static <T> Uni<T> withConnection(Pool pool, Function<SqlConnection, Uni<T>> work) {
        return pool.withConnection(conn -> work.apply(quiet(conn)));
    }

    /**
     * {@link Pool#withTransaction(Function)}, the connection's failures outside its operations
     * logged at DEBUG instead of printed: committed when the work's Uni succeeds, rolled back
     * when it fails.
     *
     * @param work the operations to run in the transaction
     * @return the work's result; the Uni fails as the work's Uni fails (or when no connection
     *         can be borrowed, the transaction cannot begin or its commit fails)
     */
    public static <T> Uni<T> withTransaction(Pool pool, Function<SqlConnection, Uni<T>> work) {
        return pool.withTransaction(conn -> work.apply(quiet(conn)));
    }

    private static SqlConnection quiet(SqlConnection conn) {
        return conn.exceptionHandler(e -> LOG.debugf("A borrowed database connection failed: %s", e.toString()));
    }
}
