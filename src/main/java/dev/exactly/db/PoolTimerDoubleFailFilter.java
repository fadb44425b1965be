package dev.exactly.db;

import io.quarkus.logging.LoggingFilter;
import java.util.logging.Filter;
import java.util.logging.LogRecord;

/**
 * Keeps one known Vert.x SQL client defect out of the console log (quarkus.log.console.filter):
 * when the pool cannot connect (the database is away), a query run on the pool fails at once, as
 * it should, and Exactly answers 503; but the pool's connection-timeout timer for that query is not
 * cancelled, and when it fires (30 s later) it fails the already failed promise. Vert.x reports
 * that as an uncaught {@code IllegalStateException: Result is already complete} from
 * {@code SqlConnectionPool.lambda$execute…}, logged as an ERROR with its whole stack, one per query
 * that failed during the outage, after the outage is over (upstream: eclipse-vertx/vertx-sql-client
 * issue 1706, open). Nothing is lost or held by it: the request was already answered.
 *
 * <p>Only a record whose thrown exception (or a cause of it) is exactly that, raised in that
 * method, is dropped; every other record, including other uncaught exceptions, passes. Remove this
 * class and its key once a Vert.x release fixes the timer.
 */
@LoggingFilter(name = "vertx-pool-timer")
public final class PoolTimerDoubleFailFilter implements Filter {

    private static final String MESSAGE = "Result is already complete";
    private static final String POOL = "io.vertx.sqlclient.impl.pool.SqlConnectionPool";
    private static final String METHOD = "lambda$execute";

    /** @return false for the double failure of the pool's timer described above, true otherwise */
    @Override
    public boolean isLoggable(LogRecord record) {
        for (Throwable t = record.getThrown(); t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (isTimerDoubleFail(t)) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code t} is the pool timer's second failure of one promise. */
    static boolean isTimerDoubleFail(Throwable t) {
        if (!(t instanceof IllegalStateException) || !MESSAGE.equals(t.getMessage())) {
            return false;
        }
        for (StackTraceElement e : t.getStackTrace()) {
            if (POOL.equals(e.getClassName()) && e.getMethodName().startsWith(METHOD)) {
                return true;
            }
        }
        return false;
    }
}
