package dev.exactly.db;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.util.Set;

/**
 * Drops the two gauges the Vert.x PostgreSQL client would register once per connection under
 * one name ({@code postgresql.queue.size} and {@code postgresql.current}, tagged only with the
 * datasource): the meter registry keeps the first connection's and ignores every later one, with
 * a "Gauge … already registered" warning at each start, so they would report one connection's
 * figures (and go stale when it closes) as the datasource's. The client's counters and timers
 * ({@code postgresql.queue.delay}, {@code postgresql.processing}, {@code postgresql.completed},
 * {@code postgresql.reset}) add up across connections and stay.
 */
@Singleton
public class ConnectionMeterFilter {

    /** The per-connection gauges dropped. */
    static final Set<String> PER_CONNECTION_GAUGES = Set.of("postgresql.queue.size", "postgresql.current");

    /** @return the filter Quarkus applies to the meter registries */
    @Produces
    @Singleton
    MeterFilter perConnectionGauges() {
        return MeterFilter.deny(id -> id.getType() == Meter.Type.GAUGE && PER_CONNECTION_GAUGES.contains(id.getName()));
    }
}
