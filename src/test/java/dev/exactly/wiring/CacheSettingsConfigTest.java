package dev.exactly.wiring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.engine.cache.CacheSettings;
import dev.exactly.testing.CacheDefaults;
import io.smallrye.config.ConfigValidationException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The exactly.dedup-cache.* keys reach the engine's {@link CacheSettings} through
 * {@link EngineBeans#cacheSettings}, over SmallRye Config's real mapping (with Quarkus' duration
 * converter); their defaults are the ones docs/configuration.md lists.
 */
class CacheSettingsConfigTest {

    @Test
    void theDefaultsAreTheDocumentedOnes() {
        CacheSettings s = CacheDefaults.settings(Map.of());
        assertEquals(new CacheSettings(512L * 1024 * 1024, 0.9, 30_000, 5_000, 60_000, 30_000, 5, 100_000, 256,
                262_144, 1_000, 2), s);
    }

    @Test
    void everyKeyTakesEffect() {
        CacheSettings s = CacheDefaults.settings(Map.ofEntries(
                Map.entry("exactly.dedup-cache.max-mb", "64"),
                Map.entry("exactly.dedup-cache.fit-ratio", "0.75"),
                Map.entry("exactly.dedup-cache.cooldown", "2m"),
                Map.entry("exactly.dedup-cache.recent-use", "250ms"),
                Map.entry("exactly.dedup-cache.warn-interval", "10s"),
                Map.entry("exactly.dedup-cache.memo-ttl", "PT1M"),
                Map.entry("exactly.dedup-cache.skew-slack", "2500ms"),
                Map.entry("exactly.dedup-cache.bookkeeping-cap", "1000"),
                Map.entry("exactly.dedup-cache.max-buffered-commits", "16"),
                Map.entry("exactly.dedup-cache.max-delta-rows", "4096"),
                Map.entry("exactly.dedup-cache.hydration-retry", "3s"),
                Map.entry("exactly.dedup-cache.max-concurrent-loads", "4")));
        // the skew slack only widens: 2.5 s is taken as 3 s
        assertEquals(new CacheSettings(64L * 1024 * 1024, 0.75, 120_000, 250, 10_000, 60_000, 3, 1000, 16, 4096,
                3_000, 4), s);
    }

    @Test
    void aValueOutOfRangeNamesTheConfiguration() {
        for (Map.Entry<String, String> bad : Map.of(
                "exactly.dedup-cache.fit-ratio", "1.5",
                "exactly.dedup-cache.max-mb", "0",
                "exactly.dedup-cache.max-concurrent-loads", "0",
                "exactly.dedup-cache.cooldown", "-1s",
                "exactly.dedup-cache.bookkeeping-cap", "0").entrySet()) {
            ConfigValidationException e = assertThrows(ConfigValidationException.class,
                    () -> CacheDefaults.settings(Map.of(bad.getKey(), bad.getValue())), bad.toString());
            assertTrue(e.getMessage().contains(bad.getKey()), e.getMessage());
        }
    }
}
