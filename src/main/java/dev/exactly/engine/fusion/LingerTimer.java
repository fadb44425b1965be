package dev.exactly.engine.fusion;

/** Runs a task after a delay: the fusion layer's linger. Injected so tests control time. */
@FunctionalInterface
public interface LingerTimer {

    /**
     * @param delayNanos delay in nanoseconds (≥ 0)
     * @param task       what to run; must not block
     */
    void schedule(long delayNanos, Runnable task);
}
