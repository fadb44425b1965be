package dev.exactly.testing;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import org.jboss.logmanager.ExtHandler;
import org.jboss.logmanager.ExtLogRecord;
import org.jboss.logmanager.LogContext;
import org.jboss.logmanager.handlers.ConsoleHandler;

/**
 * Keeps every log record that reaches the root logger while it is open (all levels, before any
 * handler's filter or formatter), for tests that check what the service logs; and finds the
 * console handler Quarkus configured (its formatter and filter are what a user's console shows).
 */
public final class LogCapture extends ExtHandler implements AutoCloseable {

    private final List<ExtLogRecord> records = Collections.synchronizedList(new ArrayList<>());

    private LogCapture() {
        setLevel(Level.ALL);
    }

    /** @return a capture attached to the root logger until {@link #close()} */
    public static LogCapture open() {
        LogCapture c = new LogCapture();
        LogContext.getLogContext().getLogger("").addHandler(c);
        return c;
    }

    @Override
    protected void doPublish(ExtLogRecord record) {
        records.add(record);
    }

    /** @return a copy of the records kept so far, in the order they were logged */
    public List<ExtLogRecord> records() {
        synchronized (records) {
            return List.copyOf(records);
        }
    }

    /** Detaches the capture from the root logger. */
    @Override
    public void close() {
        LogContext.getLogContext().getLogger("").removeHandler(this);
    }

    /**
     * @return the console handler under the root logger (Quarkus nests it in its own handlers)
     * @throws AssertionError when there is none
     */
    public static ConsoleHandler consoleHandler() {
        Deque<Handler> todo = new ArrayDeque<>(List.of(LogContext.getLogContext().getLogger("").getHandlers()));
        while (!todo.isEmpty()) {
            Handler h = todo.pop();
            if (h instanceof ConsoleHandler console) {
                return console;
            }
            if (h instanceof ExtHandler e) {
                todo.addAll(List.of(e.getHandlers()));
            }
        }
        throw new AssertionError("no console handler");
    }
}
