package dev.exactly.problem;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.db.StoreUnavailableException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * One log line per kind of database failure a minute, every failure counted: the first of an
 * interval is logged, the others of that interval are not; each kind keeps its own interval; the
 * counter has every one, by kind.
 */
class DatabaseFailuresTest {

    private final AtomicLong now = new AtomicLong(TimeUnit.HOURS.toNanos(1));
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final DatabaseFailures failures = new DatabaseFailures(registry, now::get);
    private final StoreUnavailableException cause = new StoreUnavailableException("connection refused");

    private double count(String kind) {
        return registry.get("exactly.database.failures").tag("kind", kind).counter().count();
    }

    @Test
    void oneLinePerKindPerMinuteEveryFailureCounted() {
        assertTrue(failures.failed(DatabaseFailures.Kind.UNAVAILABLE, cause));
        for (int i = 0; i < 499; i++) {
            now.addAndGet(TimeUnit.MILLISECONDS.toNanos(3));
            assertFalse(failures.failed(DatabaseFailures.Kind.UNAVAILABLE, cause));
        }
        // the other kind has its own minute
        assertTrue(failures.failed(DatabaseFailures.Kind.DATABASE_TIMEOUT, cause));
        assertFalse(failures.failed(DatabaseFailures.Kind.DATABASE_TIMEOUT, cause));
        now.addAndGet(TimeUnit.SECONDS.toNanos(59));
        assertTrue(failures.failed(DatabaseFailures.Kind.UNAVAILABLE, cause), "a minute after the first line");
        assertFalse(failures.failed(DatabaseFailures.Kind.UNAVAILABLE, cause));
        assertEquals(502, count("unavailable"));
        assertEquals(2, count("database-timeout"));
    }

    @Test
    void bothSeriesExistFromTheStart() {
        assertEquals(0, count("unavailable"));
        assertEquals(0, count("database-timeout"));
    }
}
