package dev.exactly.testing;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.Map;

/**
 * Points a Quarkus test application at the Citus cluster ({@link CitusCluster}), emptied,
 * migrated and distributed first. Used by {@link CitusProfile}.
 */
public class CitusResource implements QuarkusTestResourceLifecycleManager {

    @Override
    public Map<String, String> start() {
        CitusCluster.Target t = CitusCluster.prepare();
        AppDatabase.use(t);
        return Map.of(
                "quarkus.datasource.reactive.url", t.reactiveUrl(),
                "quarkus.datasource.username", t.user(),
                "quarkus.datasource.password", t.password() == null ? "" : t.password());
    }

    @Override
    public void stop() {
        // the cluster is not ours to stop
    }
}
