package dev.exactly.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMax;
import org.hibernate.validator.constraints.time.DurationMin;

/** Everything configurable under the {@code exactly.} prefix (SmallRye Config). */
@ConfigMapping(prefix = "exactly")
public interface ExactlyConfig {

    /** Push API limits. */
    Push push();

    /** Schema migrations. */
    Schema schema();

    /** The warm-instance dedup cache (server mode); named here so that a refused value is named as written. */
    @WithName("dedup-cache")
    DedupCacheConfig dedupCache();

    /**
     * The embedded PostgreSQL of the server shape's local default, read before Quarkus starts (by
     * {@code dev.exactly.server.ExactlyMain}, from system properties and the environment only).
     */
    Embedded embedded();

    /** The push path run in memory before serving ({@code dev.exactly.push.HotPathPriming}). */
    Priming priming();

    /** Push API limits. */
    interface Push {
        /** Most items one request may carry; more is a 400. */
        @WithDefault("1000")
        @Min(1)
        int maxItems();

        /** Largest request body in bytes (default 6 MiB, the Lambda synchronous payload limit); more is a 413. */
        @WithDefault("6291456")
        @Min(1)
        long maxBodyBytes();
    }

    /**
     * The push path run in memory before serving: by the server shape at start-up, before its
     * HTTP listener opens, and by the Lambda shape before a SnapStart checkpoint only.
     */
    interface Priming {
        /** Rounds of a one-item push bound, validated, grouped, hashed, encoded and answered (0: none). */
        @WithDefault("2000")
        @Min(0)
        int rounds();
    }

    /** Schema migrations. */
    interface Schema {
        /** Apply sql/ (Flyway) at start-up. On for the server and local default, off on Lambda. */
        @WithDefault("true")
        boolean migrateAtStart();
    }

    /**
     * The warm-instance dedup cache ({@code exactly.dedup-cache.*}), mapped onto the engine's
     * {@code dev.exactly.engine.cache.CacheSettings} by {@code dev.exactly.wiring.EngineBeans}. Only
     * {@link #enabled()} and {@link #maxMb()} are meant for everyday tuning; the rest are the
     * memory governor's and the hydration's tunables. The governor's defaults are the values the
     * Queen message queue's documentation gives for its broker's dedup cache ("Deduplication",
     * sections "The broker cache, and what it is allowed to do" and "Under memory pressure": 90%
     * fit line, 30 s cooldown, 5 s recent-use guard, one warning a minute, 30 s memo TTL, 5 s
     * clock-skew slack, 100,000 bookkeeping entries); the buffer, delta, retry and concurrency
     * limits are this project's. An invalid value stops the service at start-up (Bean Validation of
     * this mapping, naming the key).
     */
    interface DedupCacheConfig {
        /**
         * On in the server shape; the Lambda shape turns it off
         * ({@code %lambda.exactly.dedup-cache.enabled=false}). Off means: always probe the whole
         * window (p_verified = -1).
         */
        @WithDefault("true")
        boolean enabled();

        /** Memory cap for resident hashes and their bookkeeping, in MiB (at least 1). */
        @WithDefault("512")
        @Min(1)
        int maxMb();

        /**
         * A full rehydration is admitted only if the cache stays under this fraction of the cap
         * (hysteresis), in (0, 1].
         */
        @WithDefault("0.9")
        @DecimalMin(value = "0", inclusive = false)
        @DecimalMax("1")
        double fitRatio();

        /** How long a partition that failed admission answers "probe all" before it is tested again. */
        @WithDefault("30s")
        @DurationMin
        Duration cooldown();

        /** A partition used this recently is never evicted to admit another. */
        @WithDefault("5s")
        @DurationMin
        Duration recentUse();

        /** At most one memory-pressure warning per this interval, process-wide. */
        @WithDefault("60s")
        @DurationMin
        Duration warnInterval();

        /**
         * An entry whose partition id, window and allocator watermark were last confirmed longer
         * ago than this answers "probe all" until a commit confirms them.
         */
        @WithDefault("30s")
        @DurationMin
        Duration memoTtl();

        /**
         * Clock-skew slack added on the safe side to hydration and expiry (whole seconds; a
         * fraction is rounded up).
         */
        @WithDefault("5s")
        @DurationMin
        @DurationMax(days = 365)
        Duration skewSlack();

        /** Soft cap on the entries of the cooldown and footprint-hint maps. */
        @WithDefault("100000")
        @Min(1)
        int bookkeepingCap();

        /**
         * Commits remembered while a hydration is in flight; beyond, the entry heals again after
         * installing.
         */
        @WithDefault("256")
        @Min(0)
        int maxBufferedCommits();

        /** A gap larger than this many offsets is healed by a full hydration instead of a delta read. */
        @WithDefault("262144")
        @Min(0)
        long maxDeltaRows();

        /** After a failed hydration, the entry answers "probe all" this long before retrying. */
        @WithDefault("1s")
        @DurationMin
        Duration hydrationRetry();

        /**
         * Hydrations in flight at once (at least 1): each holds a pooled connection while it
         * streams, so a cold start over many partitions must not starve pushes of connections; a
         * partition that finds no slot answers "probe all" and tries again on its next push.
         */
        @WithDefault("2")
        @Min(1)
        int maxConcurrentLoads();
    }

    /** The embedded PostgreSQL used when no datasource URL is configured. */
    interface Embedded {
        /** Start it when no datasource URL is configured. */
        @WithDefault("true")
        boolean enabled();

        /** Data directory, kept across restarts. */
        @WithDefault(".exactly/pgdata")
        String dataDir();

        /** TCP port on 127.0.0.1; 0 picks a free one. */
        @WithDefault("0")
        @Min(0)
        @Max(65535)
        int port();

        /**
         * Restarts of a dead embedded PostgreSQL per outage (at least 1) before the service stops
         * with status 1.
         */
        @WithDefault("5")
        @Min(1)
        int restartAttempts();
    }
}
