package dev.exactly.wiring;

import dev.exactly.engine.PushRepository;
import dev.exactly.engine.cache.CacheStats;
import dev.exactly.engine.cache.WarmDedupCache;
import dev.exactly.engine.fusion.FusingWriter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.ToDoubleFunction;

/**
 * Micrometer meters for the engine (an adapter: the engine itself has no metrics dependency).
 * Prometheus names: exactly_dedup_cache_* (resident bytes and hashes, bytes per hash, partitions,
 * suppressed partitions, hydrations by kind, probes by kind, local hits, evictions),
 * exactly_push_sql_calls_total, exactly_fusion_* (flushes, requests, followers, bundles).
 */
public final class EngineMetrics {

    private EngineMetrics() {
    }

    /** Registers the warm cache's gauges and counters. */
    public static void bindCache(MeterRegistry r, WarmDedupCache cache) {
        gauge(r, cache, "exactly.dedup.cache.resident.bytes", "bytes", "accounted bytes of resident hashes",
                s -> s.residentBytes());
        gauge(r, cache, "exactly.dedup.cache.resident.hashes", null, "resident transaction hashes",
                s -> s.residentHashes());
        // a ratio: no base unit, which Prometheus would append (exactly_dedup_cache_bytes_per_hash_bytes)
        gauge(r, cache, "exactly.dedup.cache.bytes.per.hash", null, "accounted bytes per resident hash",
                CacheStats::bytesPerHash);
        gauge(r, cache, "exactly.dedup.cache.partitions", null, "resident partitions", s -> s.partitions());
        gauge(r, cache, "exactly.dedup.cache.suppressed.partitions", null,
                "partitions answering full probes during a memory-pressure cooldown", s -> s.suppressedPartitions());
        counter(r, cache, "exactly.dedup.cache.hydrations", "kind", "full", s -> s.fullHydrations());
        counter(r, cache, "exactly.dedup.cache.hydrations", "kind", "delta", s -> s.deltaHydrations());
        counter(r, cache, "exactly.dedup.cache.hydrations", "kind", "failed", s -> s.failedHydrations());
        counter(r, cache, "exactly.dedup.probes", "kind", "narrowed", s -> s.narrowedProbes());
        counter(r, cache, "exactly.dedup.probes", "kind", "full", s -> s.fullProbes());
        counter(r, cache, "exactly.dedup.cache.local.hits", null, null, s -> s.localHits());
        counter(r, cache, "exactly.dedup.cache.evictions", null, null, s -> s.evictions());
        counter(r, cache, "exactly.dedup.cache.suppressions", null, null, s -> s.suppressions());
    }

    /** Registers the store's SQL call counter and, when fusion is on, the fusion counters. */
    public static void bindEngine(MeterRegistry r, PushRepository store, FusingWriter fusing) {
        FunctionCounter.builder("exactly.push.sql.calls", store, PushRepository::calls)
                .description("push_bundle and push_segment calls (SQL round trips)").register(r);
        FunctionCounter.builder("exactly.push.wal.flushes", store, PushRepository::flushes)
                .description("WAL flushes (exactly.flush_wal()) that answers waited for: pushes that wrote, and "
                        + "duplicates whose original might not have been flushed yet").register(r);
        if (fusing != null) {
            FunctionCounter.builder("exactly.fusion.flushes", fusing, FusingWriter::flushes)
                    .description("fused flushes sent").register(r);
            FunctionCounter.builder("exactly.fusion.requests", fusing, FusingWriter::submissions)
                    .description("single-partition requests submitted to fusion").register(r);
            FunctionCounter.builder("exactly.fusion.followers", fusing, FusingWriter::followers)
                    .description("items settled as followers inside a flush (layer 2)").register(r);
            FunctionCounter.builder("exactly.fusion.bundles", fusing, FusingWriter::bundles)
                    .description("multi-partition requests sent as unfused bundles").register(r);
            Gauge.builder("exactly.fusion.lanes", fusing, FusingWriter::openLanes)
                    .description("partitions with a fusion lane open (a write in flight, requests waiting, or a lane "
                            + "lingering for at most a second)").strongReference(true).register(r);
        }
    }

    private static void gauge(MeterRegistry r, WarmDedupCache cache, String name, String unit, String description,
                              ToDoubleFunction<CacheStats> f) {
        Gauge.builder(name, cache, c -> f.applyAsDouble(c.stats())).baseUnit(unit).description(description)
                .strongReference(true).register(r);
    }

    private static void counter(MeterRegistry r, WarmDedupCache cache, String name, String tag, String value,
                                ToDoubleFunction<CacheStats> f) {
        FunctionCounter.Builder<WarmDedupCache> b = FunctionCounter.builder(name, cache, c -> f.applyAsDouble(c.stats()));
        if (tag != null) {
            b.tag(tag, value);
        }
        b.register(r);
    }
}
