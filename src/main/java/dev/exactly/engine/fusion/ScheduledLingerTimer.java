package dev.exactly.engine.fusion;

import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A {@link LingerTimer} on one daemon thread (sub-millisecond delays). A flush it fires only
 * builds the fused segment and hands it to the non-blocking SQL client. Close it on shutdown.
 */
public final class ScheduledLingerTimer implements LingerTimer, AutoCloseable {

    private final ScheduledThreadPoolExecutor executor;

    /** Starts the timer thread ("exactly-fusion-linger"). */
    public ScheduledLingerTimer() {
        executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "exactly-fusion-linger");
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
    }

    @Override
    public void schedule(long delayNanos, Runnable task) {
        executor.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    }

    /** Stops accepting lingers; those already scheduled still run (their pushes are sent), then the thread ends. */
    @Override
    public void close() {
        executor.shutdown();
    }
}
