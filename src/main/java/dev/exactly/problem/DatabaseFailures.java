package dev.exactly.problem;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.jboss.logging.Logger;

/**
 * Counts and logs the requests answered 503 because of the database: while it is away every
 * request fails the same way, and one WARN per request would flood the log (hundreds a second
 * under load). Each kind ({@link Kind}) is logged at most once per {@link #INTERVAL} (as the
 * dedup cache's memory warning is): the first failure of an interval is logged with its cause and
 * the number of like failures since the last line; every failure is counted in the Micrometer
 * counter {@code exactly.database.failures} (Prometheus: {@code exactly_database_failures_total})
 * tagged {@code kind}, whose two series are registered at start-up. Thread-safe.
 */
@Startup
@ApplicationScoped
public class DatabaseFailures {

    private static final Logger LOG = Logger.getLogger(DatabaseFailures.class);

    /** At most one WARN per kind per interval. */
    public static final Duration INTERVAL = Duration.ofMinutes(1);

    /** What a request was answered with; the tag value is the problem type's last segment. */
    public enum Kind {
        /** 503 /problems/unavailable: no connection, a lost connection, the server refusing work. */
        UNAVAILABLE("unavailable", "database unavailable"),
        /** 503 /problems/database-timeout: a statement or lock timeout, or the request's deadline. */
        DATABASE_TIMEOUT("database-timeout", "database timeout");

        final String tag;
        final String what;

        Kind(String tag, String what) {
            this.tag = tag;
            this.what = what;
        }
    }

    private final Counter[] counters = new Counter[Kind.values().length];
    private final AtomicLong[] lastLogged = new AtomicLong[Kind.values().length];
    private final AtomicLong[] unlogged = new AtomicLong[Kind.values().length];
    private final LongSupplier clock;

    /** @param registry the application's registry */
    @Inject
    public DatabaseFailures(MeterRegistry registry) {
        this(registry, System::nanoTime);
    }

    /**
     * @param registry where the counter goes
     * @param clock    nanoseconds, {@link System#nanoTime()} scale
     */
    DatabaseFailures(MeterRegistry registry, LongSupplier clock) {
        this.clock = clock;
        for (Kind k : Kind.values()) {
            counters[k.ordinal()] = Counter.builder("exactly.database.failures").tag("kind", k.tag)
                    .description("requests answered 503 because of the database (unavailable, or database-timeout); "
                            + "the log shows one of each kind a minute")
                    .register(registry);
            lastLogged[k.ordinal()] = new AtomicLong(clock.getAsLong() - INTERVAL.toNanos() - 1);
            unlogged[k.ordinal()] = new AtomicLong();
        }
    }

    /**
     * Counts one failed request and logs it if no failure of its kind was logged in the last
     * {@link #INTERVAL}.
     *
     * @param kind  how it was answered
     * @param cause what failed (its message, or its cause's, is logged)
     * @return true when this one was logged
     */
    public boolean failed(Kind kind, Throwable cause) {
        int i = kind.ordinal();
        counters[i].increment();
        long now = clock.getAsLong();
        long last = lastLogged[i].get();
        if (now - last < INTERVAL.toNanos() || !lastLogged[i].compareAndSet(last, now)) {
            unlogged[i].incrementAndGet();
            return false;
        }
        long others = unlogged[i].getAndSet(0);
        String reason = cause == null ? "" : cause.getCause() != null ? cause.getCause().toString() : cause.getMessage();
        if (others == 0) {
            LOG.warnf("%s: %s (at most one such line a minute; every one is counted in exactly_database_failures_total"
                    + "{kind=\"%s\"})", kind.what, reason, kind.tag);
        } else {
            LOG.warnf("%s: %s (and %d more since the last such line, counted in exactly_database_failures_total"
                    + "{kind=\"%s\"})", kind.what, reason, others, kind.tag);
        }
        return true;
    }
}
