package dev.exactly.destination;

import dev.exactly.testing.CitusCluster;
import dev.exactly.testing.CitusProfile;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * {@link DrainRepositoryTest} (how a store of the Lambda shape asks for a drain) on a Citus cluster ({@link
 * CitusProfile}: the application's database is the coordinator {@value CitusCluster#URL_VARIABLE} names,
 * emptied, migrated and distributed first). Skipped when it is not set.
 */
@QuarkusTest
@TestProfile(CitusProfile.class)
@EnabledIfEnvironmentVariable(named = CitusCluster.URL_VARIABLE, matches = ".+", disabledReason = CitusCluster.SKIPPED)
class DrainRepositoryCitusTest extends DrainRepositoryTest {
}
