package dev.exactly.engine.cache;

/**
 * The cache's clock: monotonic milliseconds from an arbitrary origin. Injected so that every time
 * rule (expiry, cooldowns, the recent-use guard, the memo TTL, warnings) is testable without
 * sleeping.
 */
@FunctionalInterface
public interface Ticker {

    /** @return the current time in milliseconds, never decreasing */
    long millis();

    /** {@link System#nanoTime()} in milliseconds: immune to wall-clock steps. */
    Ticker SYSTEM = () -> System.nanoTime() / 1_000_000L;
}
