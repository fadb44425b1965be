package dev.exactly.destination;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.util.List;
import java.util.Optional;

/** How this instance delivers to destinations, under {@code exactly.delivery.*} (SmallRye Config). */
@ConfigMapping(prefix = "exactly.delivery")
public interface DeliveryConfig {

    /** Whether this instance delivers to destinations at all. */
    @WithDefault("true")
    boolean enabled();

    /** What starts delivery on this instance. */
    enum Mode {
        /**
         * The server shape: this instance's own pushes wake delivery in-process, and a timer every
         * {@link #pollMs()} looks for other instances' messages and for retries.
         */
        TIMER,
        /**
         * The Lambda shape: delivery runs only inside an invocation that asks for it
         * ({@link Dispatcher#drain}); a push, webhook or transaction that stored messages in a queue
         * with destinations asks for one through a {@link DrainTrigger} (an asynchronous
         * invocation of the function itself), and a schedule asks for one over all destinations.
         */
        INVOCATION
    }

    /** {@code timer} (the server shape's default) or {@code invocation} (the Lambda shape's). */
    @WithDefault("timer")
    Mode mode();

    /**
     * In {@code invocation} mode: after a drain of a queue was asked for, further stores in that
     * queue ask for none for this many milliseconds (the drain asked for delivers them; one that
     * found nothing more clears the wait at once).
     */
    @WithDefault("1000")
    @Min(0)
    @Max(60000)
    int drainDebounceMs();

    /**
     * Host names or CIDR ranges (e.g. {@code hooks.internal.example}, {@code 10.1.0.0/16},
     * {@code 127.0.0.2/32}) a destination may reach although their addresses are refused by
     * default (loopback, link-local, private, unique-local, shared and unspecified ranges).
     */
    Optional<List<String>> allowedHosts();

    /**
     * How often, in milliseconds, every destination is looked at for messages stored by other
     * instances and for retries; this instance's own pushes wake delivery at once.
     */
    @WithDefault("500")
    @Min(10)
    @Max(60000)
    int pollMs();

    /** Deliveries in flight at once on this instance, over all destinations (each on its own partition). */
    @WithDefault("8")
    @Min(1)
    @Max(256)
    int workers();

    /** Most messages one worker leases from a partition at a time (then delivered one by one, in offset order). */
    @WithDefault("32")
    @Min(1)
    @Max(1000)
    int batch();

    /**
     * Server shape ({@link Mode#TIMER}): at a graceful stop, how long, in milliseconds from the stop
     * signal, the attempts under way may go on to their answers (which count, and are acked) before
     * the stop cuts off those still running (sent again after the restart, or by another instance).
     * No attempt begins meanwhile. 0 cuts them off as soon as the HTTP server answered its own
     * requests under way. Unused in {@link Mode#INVOCATION}, where delivery runs only inside an
     * invocation.
     */
    @WithDefault("10000")
    @Min(0)
    @Max(20000)
    int stopWaitMs();
}
