package dev.exactly.server;

import dev.exactly.push.HotPathPriming;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;

/**
 * Runs the push path in memory ({@link HotPathPriming}, {@code exactly.priming.rounds} rounds;
 * nothing connects to the database, nothing is written) when the server starts, after the other
 * start-up observers: Quarkus opens the HTTP listener only once every start-up observer has
 * returned, so the first pushes it answers find that code compiled. The start is longer by the
 * rounds' time, which the log states. The server shape's only (src/server/java): the Lambda shape
 * primes before a SnapStart checkpoint instead, never in an on-demand start.
 */
@ApplicationScoped
public class StartupPriming {

    private final HotPathPriming priming;

    /** Constructor injection. */
    public StartupPriming(HotPathPriming priming) {
        this.priming = priming;
    }

    void prime(@Observes @Priority(Interceptor.Priority.PLATFORM_AFTER) StartupEvent event) {
        if (priming.rounds() > 0) {
            priming.prime(false, "Start-up: before the HTTP listener opens");
        }
    }
}
