package dev.exactly.wiring;

import dev.exactly.config.ExactlyConfig;
import dev.exactly.config.FusionConfig;
import dev.exactly.engine.DedupCache;
import dev.exactly.engine.DirectWriter;
import dev.exactly.engine.DuplicateTally;
import dev.exactly.engine.PushEngine;
import dev.exactly.engine.PushRepository;
import dev.exactly.engine.SegmentWriter;
import dev.exactly.engine.cache.CacheSettings;
import dev.exactly.engine.cache.Ticker;
import dev.exactly.engine.cache.TxnHashRepository;
import dev.exactly.engine.cache.WarmDedupCache;
import dev.exactly.engine.fusion.FusingWriter;
import dev.exactly.engine.fusion.FusionSettings;
import dev.exactly.engine.fusion.ScheduledLingerTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.time.Duration;
import org.jboss.logging.Logger;

/**
 * Wires the engine (which knows nothing of CDI) to this application's pool and config: the warm
 * dedup cache when {@code exactly.dedup-cache.enabled} (server shape), the fusion layer when
 * {@code exactly.fusion.enabled} (server shape), the duplicate tally, and their Micrometer meters
 * ({@link EngineMetrics}).
 */
@ApplicationScoped
public class EngineBeans {

    private static final Logger LOG = Logger.getLogger(EngineBeans.class);

    private volatile ScheduledLingerTimer timer;

    /** The dedup cache of this instance: warm (server) or {@link DedupCache#DISABLED} (Lambda). */
    @Produces
    @ApplicationScoped
    public DedupCache dedupCache(Pool pool, ExactlyConfig config, Instance<MeterRegistry> registry) {
        if (!config.dedupCache().enabled()) {
            return DedupCache.DISABLED;
        }
        WarmDedupCache cache = new WarmDedupCache(new TxnHashRepository(pool), cacheSettings(config.dedupCache()),
                Ticker.SYSTEM);
        if (registry.isResolvable()) {
            EngineMetrics.bindCache(registry.get(), cache);
        }
        LOG.infof("dedup cache: warm, cap %d MiB", config.dedupCache().maxMb());
        return cache;
    }

    /**
     * The engine's cache tunables from {@code exactly.dedup-cache.*}: MiB to bytes, durations to
     * milliseconds (the skew slack to whole seconds, rounded up: the slack only ever widens).
     *
     * @param c the configuration
     * @return the settings
     * (The mapping's constraints have checked each value at start-up, naming its key.)
     */
    public static CacheSettings cacheSettings(ExactlyConfig.DedupCacheConfig c) {
        Duration slack = c.skewSlack();
        long slackSeconds = slack.toSeconds() + (slack.toNanosPart() > 0 ? 1 : 0);
        return new CacheSettings(c.maxMb() * 1024L * 1024L, c.fitRatio(), c.cooldown().toMillis(),
                c.recentUse().toMillis(), c.warnInterval().toMillis(), c.memoTtl().toMillis(),
                (int) slackSeconds, c.bookkeepingCap(), c.maxBufferedCommits(), c.maxDeltaRows(),
                c.hydrationRetry().toMillis(), c.maxConcurrentLoads());
    }

    /**
     * This instance's in-memory count of the duplicates its engine answered, which
     * dev.exactly.duplicate.DuplicateFlusher writes to the database.
     */
    @Produces
    @Singleton
    public DuplicateTally duplicateTally() {
        return new DuplicateTally();
    }

    /** The push engine of this instance. */
    @Produces
    @ApplicationScoped
    public PushEngine pushEngine(Pool pool, DedupCache cache, FusionConfig fusion, DuplicateTally duplicates,
                                 Instance<MeterRegistry> registry) {
        // without fusion (the stateless shape) every request is a transaction of its own: it commits
        // before its WAL flush, so that concurrent requests to a partition do not queue on its lock
        // for each other's flushes; with fusion, as exactly.fusion.release-before-flush says
        PushRepository store = new PushRepository(pool, !fusion.enabled() || fusion.releaseBeforeFlush());
        SegmentWriter writer = new DirectWriter(store, cache);
        FusingWriter fusing = null;
        if (fusion.enabled()) {
            timer = new ScheduledLingerTimer();
            fusing = new FusingWriter(writer,
                    FusionSettings.of(fusion.linger(), fusion.maxItems(), fusion.maxBytes(), fusion.pipeline()), timer);
            writer = fusing;
            LOG.infof("fusion: on (linger %s, max %d items / %d bytes per flush, %d in flight per partition)", fusion.linger(),
                    fusion.maxItems(), fusion.maxBytes(), fusion.pipeline());
        }
        if (registry.isResolvable()) {
            EngineMetrics.bindEngine(registry.get(), store, fusing);
        }
        return new PushEngine(writer, store, duplicates);
    }

    /** Stops the linger timer (lingers already scheduled still flush). */
    @PreDestroy
    void close() {
        ScheduledLingerTimer t = timer;
        if (t != null) {
            t.close();
        }
    }
}
