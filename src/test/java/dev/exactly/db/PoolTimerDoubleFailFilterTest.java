package dev.exactly.db;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

/** PoolTimerDoubleFailFilter's rule, one case per condition (the real record: PoolTimerAfterOutageTest). */
class PoolTimerDoubleFailFilterTest {

    private static final PoolTimerDoubleFailFilter FILTER = new PoolTimerDoubleFailFilter();

    private static Throwable thrown(RuntimeException e, String className, String method) {
        e.setStackTrace(new StackTraceElement[] {
            new StackTraceElement("io.vertx.core.Promise", "fail", "Promise.java", 90),
            new StackTraceElement(className, method, "X.java", 216)});
        return e;
    }

    private static LogRecord record(Throwable t) {
        LogRecord r = new LogRecord(Level.SEVERE, "Uncaught exception received by Vert.x");
        r.setThrown(t);
        return r;
    }

    private static final String POOL = "io.vertx.sqlclient.impl.pool.SqlConnectionPool";

    @Test
    void thePoolTimersDoubleFailureIsDropped() {
        assertFalse(FILTER.isLoggable(record(thrown(new IllegalStateException("Result is already complete"), POOL,
                "lambda$execute$3"))));
    }

    @Test
    void soItIsAsTheCauseOfAnother() {
        Throwable inner = thrown(new IllegalStateException("Result is already complete"), POOL, "lambda$execute$3");
        assertFalse(FILTER.isLoggable(record(new RuntimeException("wrapped", inner))));
    }

    @Test
    void theSameMessageFromAnotherPlaceIsKept() {
        assertTrue(FILTER.isLoggable(record(thrown(new IllegalStateException("Result is already complete"),
                "dev.exactly.push.Something", "lambda$execute$3"))));
        assertTrue(FILTER.isLoggable(record(thrown(new IllegalStateException("Result is already complete"), POOL,
                "acquire"))));
    }

    @Test
    void anotherExceptionFromThePoolIsKept() {
        assertTrue(FILTER.isLoggable(record(thrown(new IllegalStateException("Pool closed"), POOL, "lambda$execute$3"))));
        assertTrue(FILTER.isLoggable(record(thrown(new IllegalArgumentException("Result is already complete"), POOL,
                "lambda$execute$3"))));
    }

    @Test
    void aRecordWithoutAThrowableIsKept() {
        assertTrue(FILTER.isLoggable(new LogRecord(Level.SEVERE, "Result is already complete")));
    }
}
