package dev.exactly.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smallrye.config.ConfigValidationException;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.smallrye.config.validator.BeanValidationConfigValidatorImpl;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** exactly.fusion.pipeline over SmallRye Config's real mapping and validation: 1 to 8, else the start stops naming the key. */
class FusionConfigTest {

    private static FusionConfig config(String pipeline) {
        return new SmallRyeConfigBuilder().addDiscoveredConverters().withMapping(FusionConfig.class)
                .withValidator(new BeanValidationConfigValidatorImpl())
                .withSources(new PropertiesConfigSource(Map.of("exactly.fusion.pipeline", pipeline), "test", 100))
                .build().getConfigMapping(FusionConfig.class);
    }

    @Test
    void thePipelineIsOneToEight() {
        assertEquals(1, config("1").pipeline());
        assertEquals(8, config("8").pipeline());
        for (String bad : new String[] {"0", "9", "1000"}) {
            ConfigValidationException e = assertThrows(ConfigValidationException.class, () -> config(bad), bad);
            assertTrue(e.getMessage().contains("exactly.fusion.pipeline"), e.getMessage());
        }
    }
}
