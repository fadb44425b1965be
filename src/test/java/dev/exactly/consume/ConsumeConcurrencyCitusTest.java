package dev.exactly.consume;

import dev.exactly.testing.CitusCluster;
import dev.exactly.testing.CitusProfile;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * {@link ConsumeConcurrencyTest} on a Citus cluster ({@link CitusProfile}: the application's database is the
 * coordinator {@value CitusCluster#URL_VARIABLE} names, emptied, migrated and distributed first).
 * Skipped when it is not set.
 */
@QuarkusTest
@TestProfile(CitusProfile.class)
@EnabledIfEnvironmentVariable(named = CitusCluster.URL_VARIABLE, matches = ".+", disabledReason = CitusCluster.SKIPPED)
class ConsumeConcurrencyCitusTest extends ConsumeConcurrencyTest {
}
