package dev.exactly.duplicate;

import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Writes the duplicate counts ({@link DuplicateFlusher#flushQuietly}) every
 * {@code exactly.duplicate-counts.flush-every}, the first time one interval after start-up (so
 * starting connects nothing); never two writes at once. The server shape's only
 * (src/server/java): the Lambda build has no scheduler, its handler writes the counts on a later
 * invocation ({@link DuplicateFlusher#flushIfDue}).
 */
@ApplicationScoped
public class DuplicateFlushSchedule {

    private final DuplicateFlusher flusher;

    /** Constructor injection. */
    public DuplicateFlushSchedule(DuplicateFlusher flusher) {
        this.flusher = flusher;
    }

    /** One timed write; a failure is logged (at most once a minute), never thrown. */
    @Scheduled(identity = "exactly-duplicate-counts", every = "${exactly.duplicate-counts.flush-every}",
            delayed = "${exactly.duplicate-counts.flush-every}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    Uni<Void> run() {
        return flusher.flushQuietly().replaceWithVoid();
    }
}
