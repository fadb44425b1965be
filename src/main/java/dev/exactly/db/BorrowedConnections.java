package dev.exactly.db;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;
import io.vertx.pgclient.PgConnection;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jboss.logging.Logger;

/**
 * Every database operation of the service borrows its connection here, which does two things the
 * pool alone does not.
 *
 * <p><b>The request's deadline.</b> An operation done for a request ({@link RequestDeadline})
 * ends by the request's deadline, less {@link #ANSWER_RESERVE} kept for answering. If it has not
 * finished by then it fails at once, and:
 * <ul>
 * <li>if it is still waiting for a connection (the database is not accepting any, or every
 *     pooled connection is busy), with {@link StoreUnavailableException}; it then never runs,
 *     even when a connection turns up later;</li>
 * <li>if its statement or commit is under way, with {@link DeadlineExceededException}, and the
 *     statement is cancelled on the server (a PostgreSQL cancel request, as psql's Ctrl-C sends,
 *     for the connection's backend), so that it does not keep a lock or a connection for long. The
 *     connection goes back to the pool only once both the statement and the cancel request have
 *     ended: a cancel request that arrived late would otherwise cancel the next borrower's
 *     statement. A server that cannot take the cancel request (stopped) has it when it runs again.</li>
 * </ul>
 * An operation that is no request's has no deadline and runs until it finishes (bounded by the
 * session limits of {@link DatabaseSessionConfig}).
 *
 * <p><b>Quiet failures.</b> The reactive client (vertx-sql-client 4.5,
 * {@code SqlConnectionBase.handleException}) prints a stack trace to System.err when a borrowed
 * connection without an exception handler loses its socket (the database restarts, its backend is
 * killed); the operation's Uni fails anyway. Borrowed connections get a handler that logs the
 * failure as one line at DEBUG instead.
 */
public final class BorrowedConnections {

    private static final Logger LOG = Logger.getLogger(BorrowedConnections.class);

    /** Kept back from a request's deadline for answering it once its database work is abandoned. */
    public static final Duration ANSWER_RESERVE = Duration.ofMillis(250);

    /** Work with less time than this left before the reserve is not started (timers run in whole milliseconds). */
    public static final Duration LEAST_WORK = Duration.ofMillis(5);

    private BorrowedConnections() {
    }

    /**
     * Runs work on a borrowed connection, within the current request's deadline
     * ({@link RequestDeadline#current()}, read now).
     *
     * @param work the operations to run on the borrowed connection
     * @return the work's result; the Uni fails as the work's Uni fails (or when no connection
     *         can be borrowed), or as described above when the deadline comes first
     */
    public static <T> Uni<T> withConnection(Pool pool, Function<SqlConnection, Uni<T>> work) {
        return borrow(pool, RequestDeadline.current(), false, work);
    }

    /**
     * Runs work in a transaction on a borrowed connection, within the current request's deadline:
     * committed when the work's Uni succeeds, rolled back when it fails.
     *
     * @param work the operations to run in the transaction
     * @return the work's result; the Uni fails as the work's Uni fails (or when no connection can
     *         be borrowed, the transaction cannot begin or its commit fails), or as described
     *         above when the deadline comes first
     */
    public static <T> Uni<T> withTransaction(Pool pool, Function<SqlConnection, Uni<T>> work) {
        return borrow(pool, RequestDeadline.current(), true, work);
    }

    /**
     * {@link #withTransaction(Pool, Function)} with an explicit deadline.
     *
     * @param deadline an instant ({@link System#nanoTime()} scale) or {@link RequestDeadline#NONE}
     */
    public static <T> Uni<T> withTransaction(Pool pool, long deadline, Function<SqlConnection, Uni<T>> work) {
        return borrow(pool, deadline, true, work);
    }

    /**
     * One prepared statement on a borrowed connection, within the current request's deadline.
     *
     * @param sql  the statement, with $1, $2, ... placeholders
     * @param args its arguments
     * @return its rows
     */
    public static Uni<RowSet<Row>> execute(Pool pool, String sql, Tuple args) {
        return execute(pool, RequestDeadline.current(), sql, args);
    }

    /**
     * {@link #execute(Pool, String, Tuple)} with an explicit deadline.
     *
     * @param deadline an instant ({@link System#nanoTime()} scale) or {@link RequestDeadline#NONE}
     */
    public static Uni<RowSet<Row>> execute(Pool pool, long deadline, String sql, Tuple args) {
        // LaneCycleProbe.ON is a constant false outside the bench's lane measurement
        return borrow(pool, deadline, false, conn -> LaneCycleProbe.ON
                ? LaneCycleProbe.timed(sql, () -> conn.preparedQuery(sql).execute(args))
                : conn.preparedQuery(sql).execute(args));
    }

    /** One statement without arguments (simple protocol) on a borrowed connection, within the current request's deadline. */
    public static Uni<RowSet<Row>> query(Pool pool, String sql) {
        return borrow(pool, RequestDeadline.current(), false, conn -> conn.query(sql).execute());
    }

    private static <T> Uni<T> borrow(Pool pool, long deadline, boolean transaction,
                                     Function<SqlConnection, Uni<T>> work) {
        if (deadline == RequestDeadline.NONE) {
            return pool.withConnection(conn -> run(quiet(conn), transaction, work));
        }
        return Uni.createFrom().deferred(() -> {
            long left = deadline - System.nanoTime() - ANSWER_RESERVE.toNanos();
            if (left <= LEAST_WORK.toNanos()) {
                return Uni.createFrom().failure(new DeadlineExceededException(
                        "the request's deadline came before its database work could start"));
            }
            Borrowing b = new Borrowing();
            return pool.withConnection(conn -> b.start(conn) ? b.finish(run(quiet(conn), transaction, work))
                            : Uni.createFrom().<T>failure(new StoreUnavailableException("abandoned before it got a connection")))
                    .ifNoItem().after(Duration.ofNanos(left)).failWith(() -> b.expire(left))
                    .onCancellation().invoke(b::abandon);
        });
    }

    private static <T> Uni<T> run(SqlConnection conn, boolean transaction, Function<SqlConnection, Uni<T>> work) {
        if (!transaction) {
            return work.apply(conn);
        }
        return conn.begin().flatMap(tx -> work.apply(conn).onItemOrFailure().transformToUni((item, err) -> {
            if (err == null) {
                return tx.commit().replaceWith(item);
            }
            return tx.rollback().onFailure().recoverWithNull().onItem().transformToUni(v -> Uni.createFrom().<T>failure(err));
        }));
    }

    private static SqlConnection quiet(SqlConnection conn) {
        return conn.exceptionHandler(e -> LOG.debugf("A borrowed database connection failed: %s", e.toString()));
    }

    /** One operation's borrowed connection, and what became of it. Guarded by its own monitor. */
    private static final class Borrowing {
        private SqlConnection conn;
        private boolean abandoned;
        private boolean finished;
        private CompletableFuture<Void> cancelRequest;

        /** The connection arrived: false when the operation was abandoned meanwhile (it must not run). */
        synchronized boolean start(SqlConnection c) {
            if (abandoned) {
                return false;
            }
            conn = c;
            return true;
        }

        /**
         * The work's end; the connection is released when the returned Uni ends, so it ends only
         * after a cancel request sent meanwhile has ended too.
         */
        <T> Uni<T> finish(Uni<T> work) {
            return work.onItemOrFailure().transformToUni((item, err) -> {
                CompletableFuture<Void> cancel;
                synchronized (this) {
                    finished = true;
                    cancel = cancelRequest;
                }
                Uni<T> result = err != null ? Uni.createFrom().failure(err) : Uni.createFrom().item(item);
                return cancel == null ? result
                        : Uni.createFrom().completionStage(cancel).onItemOrFailure().transformToUni((v, e) -> result);
            });
        }

        /** The deadline came: abandons the operation and says how it ended. */
        Throwable expire(long leftNanos) {
            boolean running = abandon();
            long ms = TimeUnit.NANOSECONDS.toMillis(leftNanos);
            return running
                    ? new DeadlineExceededException("the database did not finish within the deadline (" + ms
                            + " ms left when the work began); its statement was cancelled")
                    : new StoreUnavailableException("no database connection could be had within the deadline ("
                            + ms + " ms left when the work began)");
        }

        /**
         * Abandons the operation: one still waiting for its connection will not run; a statement
         * under way is cancelled on the server.
         *
         * @return true when it had its connection (it was running or finishing)
         */
        boolean abandon() {
            SqlConnection c;
            synchronized (this) {
                if (abandoned) {
                    return conn != null;
                }
                abandoned = true;
                if (conn == null) {
                    return false;
                }
                if (finished) {
                    return true;
                }
                c = conn;
                cancelRequest = new CompletableFuture<>();
            }
            cancel(c, cancelRequest);
            return true;
        }
    }

    /** Sends PostgreSQL a cancel request for the connection's backend; {@code done} completes when it has ended. */
    private static void cancel(SqlConnection c, CompletableFuture<Void> done) {
        try {
            PgConnection pg = PgConnection.cast(c.getDelegate());
            LOG.debugf("cancelling the statement of backend %d: the request's deadline came", pg.processId());
            pg.cancelRequest().onComplete(ar -> {
                if (ar.failed()) {
                    LOG.debugf("the cancel request failed: %s", ar.cause().toString());
                }
                done.complete(null);
            });
        } catch (RuntimeException e) {
            LOG.debugf("no cancel request sent: %s", e.toString());
            done.complete(null);
        }
    }
}
