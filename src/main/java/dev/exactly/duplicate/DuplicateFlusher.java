package dev.exactly.duplicate;

import dev.exactly.engine.DuplicateTally;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.jboss.logging.Logger;

/**
 * Writes this instance's in-memory count of the duplicates it answered ({@link DuplicateTally})
 * to the database ({@link DuplicateCountRepository#add}), from its own transaction, never from a
 * push's: in the server shape every {@code exactly.duplicate-counts.flush-every} (5 s; its timer,
 * {@code DuplicateFlushSchedule}, is the server's, calling {@link #flushQuietly}), once more at
 * shutdown, and, in the Lambda shape, at the start of an invocation at most once a second
 * ({@link #flushIfDue}, called by the function's handler), since a frozen instance runs no timer. A write that fails
 * puts its counts back for the next one. Counts an instance held when it was stopped without a
 * shutdown (a crash, a Lambda instance reclaimed while frozen) are lost, so the stored figure is a
 * lower bound.
 */
@ApplicationScoped
public class DuplicateFlusher {

    private static final Logger LOG = Logger.getLogger(DuplicateFlusher.class);

    /** Shortest interval between two writes piggybacked on invocations ({@link #flushIfDue}). */
    public static final Duration MIN_INTERVAL = Duration.ofSeconds(1);

    /** Shortest interval between two warnings of a failed write. */
    private static final Duration WARN_EVERY = Duration.ofMinutes(1);

    /** Longest wait for the write at shutdown. */
    static final Duration SHUTDOWN_WAIT = Duration.ofSeconds(5);

    private final DuplicateTally tally;
    private final DuplicateCountRepository repository;
    private final LongSupplier nanos;
    private final AtomicLong lastFlush;
    private final AtomicLong lastWarning;

    /**
     * Constructor injection.
     *
     * @throws IllegalArgumentException when exactly.duplicate-counts.flush-every is not a positive duration
     */
    @Inject
    public DuplicateFlusher(DuplicateTally tally, DuplicateCountRepository repository, DuplicateCountConfig config) {
        this(tally, repository);
        Duration every = DurationConverter.parseDuration(config.flushEvery());
        if (every == null || every.isNegative() || every.isZero()) {
            throw new IllegalArgumentException("exactly.duplicate-counts.flush-every must be a positive duration, not '"
                    + config.flushEvery() + "'");
        }
    }

    /**
     * A flusher of its own (a test's, or one on another pool), not scheduled.
     *
     * @param tally      the counts to write
     * @param repository where to write them
     */
    public DuplicateFlusher(DuplicateTally tally, DuplicateCountRepository repository) {
        this.tally = tally;
        this.repository = repository;
        this.nanos = System::nanoTime;
        this.lastFlush = new AtomicLong(nanos.getAsLong() - MIN_INTERVAL.toNanos());
        this.lastWarning = new AtomicLong(nanos.getAsLong() - WARN_EVERY.toNanos());
    }

    /**
     * Writes every count recorded so far; on failure they are put back and the Uni fails.
     *
     * @return the buckets written (0 when there was nothing to write, without a database call)
     * @throws dev.exactly.db.StoreUnavailableException (as the Uni's failure) when the database is away
     */
    public Uni<Integer> flush() {
        lastFlush.set(nanos.getAsLong());
        List<DuplicateTally.Count> counts = tally.drain();
        if (counts.isEmpty()) {
            return Uni.createFrom().item(0);
        }
        return repository.add(counts).onFailure().invoke(e -> tally.restore(counts));
    }

    /**
     * Writes the counts when there are any and the last write started at least {@link #MIN_INTERVAL}
     * ago (one caller wins the slot); otherwise does nothing. Never fails: a failed write is logged
     * (at most once a minute) and its counts wait for the next one.
     *
     * @return the buckets written, 0 when nothing was due
     */
    public Uni<Integer> flushIfDue() {
        long now = nanos.getAsLong();
        long last = lastFlush.get();
        if (tally.isEmpty() || now - last < MIN_INTERVAL.toNanos() || !lastFlush.compareAndSet(last, now)) {
            return Uni.createFrom().item(0);
        }
        return quietly(flush());
    }

    /**
     * Writes every count recorded so far, like {@link #flush}, but never fails: a failed write is
     * logged (at most once a minute) and its counts wait for the next one. The server shape's timer
     * calls it.
     *
     * @return the buckets written (0 when there was nothing to write, or the write failed)
     */
    public Uni<Integer> flushQuietly() {
        return quietly(flush());
    }

    /** The last write, before the pool closes (observers of a lower priority run first). */
    void atShutdown(@Observes @Priority(1) ShutdownEvent event) {
        if (tally.isEmpty()) {
            return;
        }
        try {
            Integer n = flush().await().atMost(SHUTDOWN_WAIT);
            LOG.debugf("duplicate counts: %d buckets written at shutdown", n);
        } catch (RuntimeException e) {
            LOG.warnf("duplicate counts: not written at shutdown, %d buckets lost: %s", tally.drain().size(), e.toString());
        }
    }

    private Uni<Integer> quietly(Uni<Integer> write) {
        return write.onFailure().recoverWithItem(e -> {
            long now = nanos.getAsLong();
            long last = lastWarning.get();
            if (now - last >= WARN_EVERY.toNanos() && lastWarning.compareAndSet(last, now)) {
                LOG.warnf("duplicate counts: write failed, kept for the next one: %s", e.toString());
            }
            return 0;
        });
    }
}
