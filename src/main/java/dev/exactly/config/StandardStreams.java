package dev.exactly.config;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * With JSON logs on ({@code quarkus.log.console.json.enabled}), every line the process writes is
 * one JSON object, including what libraries print past the logging system: each line written to
 * System.err becomes a WARN record of the logger {@code stderr}, each line written to System.out
 * an INFO record of {@code stdout}, and an exception no thread caught an ERROR record of
 * {@code uncaught} with its stack trace in the record's exception. (The reactive PostgreSQL client
 * prints the failure of a connection without an exception handler to System.err, e.g. {@code
 * io.vertx.pgclient.PgException: FATAL: terminating connection due to unexpected postmaster
 * exit (57P01)} when PostgreSQL is killed; the service's own connections have handlers, see
 * dev.exactly.db.BorrowedConnections.) The console handler keeps the streams it was made with,
 * so records do not come back here; a line written while its own record is being logged (a
 * logging failure) goes to the original stream. Installed when the application starts, removed
 * when it stops. With text logs the streams are left alone.
 */
@ApplicationScoped
public class StandardStreams {

    private final boolean json;
    private PrintStream originalOut;
    private PrintStream originalErr;
    private Thread.UncaughtExceptionHandler originalHandler;
    private boolean installed;

    /** Constructor injection. */
    public StandardStreams(@ConfigProperty(name = "quarkus.log.console.json.enabled", defaultValue = "false") boolean json) {
        this.json = json;
    }

    synchronized void install(@Observes @Priority(1) StartupEvent event) {
        if (!json || installed) {
            return;
        }
        originalOut = System.out;
        originalErr = System.err;
        originalHandler = Thread.getDefaultUncaughtExceptionHandler();
        System.setErr(toLog(Logger.getLogger("stderr"), Logger.Level.WARN, originalErr));
        System.setOut(toLog(Logger.getLogger("stdout"), Logger.Level.INFO, originalOut));
        Logger uncaught = Logger.getLogger("uncaught");
        Thread.setDefaultUncaughtExceptionHandler((thread, e) ->
                uncaught.errorf(e, "uncaught exception in thread %s", thread.getName()));
        installed = true;
    }

    synchronized void remove(@Observes ShutdownEvent event) {
        if (!installed) {
            return;
        }
        System.setErr(originalErr);
        System.setOut(originalOut);
        Thread.setDefaultUncaughtExceptionHandler(originalHandler);
        installed = false;
    }

    /**
     * A stream that logs each line written to it as one record.
     *
     * @param log      the logger
     * @param level    the records' level
     * @param fallback where a line goes that is written while this stream is logging on the same
     *                 thread (a logging failure reported on System.err)
     */
    static PrintStream toLog(Logger log, Logger.Level level, PrintStream fallback) {
        return new PrintStream(new LineLogger(log, level, fallback), true, StandardCharsets.UTF_8);
    }

    /** Collects bytes up to each line end and logs the line. Guarded by the PrintStream's lock. */
    private static final class LineLogger extends OutputStream {
        private static final ThreadLocal<Boolean> LOGGING = new ThreadLocal<>();

        private final Logger log;
        private final Logger.Level level;
        private final PrintStream fallback;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();

        LineLogger(Logger log, Logger.Level level, PrintStream fallback) {
            this.log = log;
            this.level = level;
            this.fallback = fallback;
        }

        @Override
        public synchronized void write(int b) {
            if (b == '\n') {
                emit();
            } else {
                line.write(b);
            }
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            for (int i = off; i < off + len; i++) {
                write(b[i]);
            }
        }

        private void emit() {
            String text = line.toString(StandardCharsets.UTF_8);
            line.reset();
            if (text.endsWith("\r")) {
                text = text.substring(0, text.length() - 1);
            }
            if (text.isEmpty()) {
                return;
            }
            if (Boolean.TRUE.equals(LOGGING.get())) {
                fallback.println(text);
                return;
            }
            LOGGING.set(Boolean.TRUE);
            try {
                log.log(level, text);
            } finally {
                LOGGING.remove();
            }
        }
    }
}
