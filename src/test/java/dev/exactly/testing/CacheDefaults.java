package dev.exactly.testing;

import dev.exactly.config.ExactlyConfig;
import dev.exactly.engine.cache.CacheSettings;
import dev.exactly.wiring.EngineBeans;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.smallrye.config.validator.BeanValidationConfigValidatorImpl;
import java.util.HashMap;
import java.util.Map;

/**
 * The warm cache's settings as the application configures them, for engine tests that build the
 * cache without a Quarkus application: SmallRye Config's real mapping of {@link ExactlyConfig}
 * (its {@code @WithDefault}s, with Quarkus' converters, validated by its constraints) through {@link EngineBeans#cacheSettings},
 * so a test sees the defaults the service runs with, not a copy of them.
 */
public final class CacheDefaults {

    private CacheDefaults() {
    }

    /**
     * @param maxMb the memory cap, in MiB ({@code exactly.dedup-cache.max-mb})
     * @return the default settings with that cap
     */
    public static CacheSettings settings(long maxMb) {
        return settings(Map.of("exactly.dedup-cache.max-mb", Long.toString(maxMb)));
    }

    /**
     * @param properties configuration keys and values (anything unset keeps its default)
     * @return the settings they configure
     * @throws io.smallrye.config.ConfigValidationException naming the key of a value out of its range
     */
    public static CacheSettings settings(Map<String, String> properties) {
        return EngineBeans.cacheSettings(config(properties).dedupCache());
    }

    /**
     * @param properties configuration keys and values (anything unset keeps its default)
     * @return the exactly.* mapping over them
     */
    public static ExactlyConfig config(Map<String, String> properties) {
        SmallRyeConfig c = new SmallRyeConfigBuilder().addDiscoveredConverters().withMapping(ExactlyConfig.class)
                .withValidator(new BeanValidationConfigValidatorImpl()).withSources(new PropertiesConfigSource(new HashMap<>(properties), "test", 100)).build();
        return c.getConfigMapping(ExactlyConfig.class);
    }
}
