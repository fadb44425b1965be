package dev.exactly.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** Everything configurable under the {@code exactly.} prefix (SmallRye Config). */
@ConfigMapping(prefix = "exactly")
public interface ExactlyConfig {

    /** Push API limits. */
    Push push();

    /** Schema migrations. */
    Schema schema();

    /** The warm-instance dedup cache (server mode). */
    DedupCacheConfig dedupCache();

    /** The embedded PostgreSQL of the local default (read before start-up, listed here for validation). */
    Embedded embedded();

    /** Push API limits. */
    interface Push {
        /** Most items one request may carry; more is a 400. */
        @WithDefault("1000")
        int maxItems();

        /** Largest request body in bytes (default 6 MiB, the Lambda synchronous payload limit); more is a 413. */
        @WithDefault("6291456")
        long maxBodyBytes();
    }

    /** Schema migrations. */
    interface Schema {
        /** Apply sql/ (Flyway) at start-up. On for the server and local default, off on Lambda. */
        @WithDefault("true")
        boolean migrateAtStart();
    }

    /** The warm-instance dedup cache. */
    interface DedupCacheConfig {
        /** Off means: always probe the whole window (p_verified = -1). */
        @WithDefault("false")
        boolean enabled();

        /** Memory cap in MiB. */
        @WithDefault("512")
        int maxMb();
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
        int port();
    }
}
