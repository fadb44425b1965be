package dev.exactly.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.config.ExactlyConfig;
import org.junit.jupiter.api.Test;

/**
 * ExactlyMain reads exactly.embedded.* before Quarkus starts through the mapping's own defaults,
 * and a system property overrides them.
 */
class EmbeddedSettingsTest {

    @Test
    void theMappingsDefaultsApplyBeforeQuarkusStarts() {
        ExactlyConfig.Embedded e = ExactlyMain.embeddedSettings();
        assertTrue(e.enabled());
        assertEquals(".exactly/pgdata", e.dataDir());
        assertEquals(0, e.port());
        assertEquals(5, e.restartAttempts());
    }

    @Test
    void aSystemPropertyOverridesThem() {
        System.setProperty("exactly.embedded.restart-attempts", "7");
        System.setProperty("exactly.embedded.enabled", "false");
        try {
            ExactlyConfig.Embedded e = ExactlyMain.embeddedSettings();
            assertEquals(7, e.restartAttempts());
            assertFalse(e.enabled());
        } finally {
            System.clearProperty("exactly.embedded.restart-attempts");
            System.clearProperty("exactly.embedded.enabled");
        }
    }
}
