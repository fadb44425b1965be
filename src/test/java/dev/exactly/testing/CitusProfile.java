package dev.exactly.testing;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.List;

/**
 * A Quarkus test profile whose application runs on the Citus cluster ({@link CitusResource})
 * instead of the embedded PostgreSQL. A test class using it must also be skipped when no cluster
 * is given: {@code @EnabledIfEnvironmentVariable(named = CitusCluster.URL_VARIABLE, matches = ".+",
 * disabledReason = CitusCluster.SKIPPED)}.
 */
public class CitusProfile implements QuarkusTestProfile {

    @Override
    public List<TestResourceEntry> testResources() {
        return List.of(new TestResourceEntry(CitusResource.class));
    }

    @Override
    public boolean disableGlobalTestResources() {
        return true;
    }
}
