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

    /** Whether this instance delivers to destinations at all (the server shape does; the Lambda shape does not yet). */
    @WithDefault("true")
    boolean enabled();

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
}
