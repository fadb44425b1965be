package dev.exactly.testing;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.Map;

/**
 * Points a Quarkus test application at a fresh database on the shared embedded PostgreSQL. The
 * application migrates it at start-up.
 */
public class PostgresResource implements QuarkusTestResourceLifecycleManager {

    /** The database the running test application uses. */
    public static volatile String database;

    @Override
    public Map<String, String> start() {
        database = TestDatabase.createDatabase();
        AppDatabase.use(new CitusCluster.Target("127.0.0.1", TestDatabase.server().getPort(), "postgres", null, database));
        return Map.of(
                "quarkus.datasource.reactive.url", TestDatabase.reactiveUrl(database),
                "quarkus.datasource.username", "postgres",
                "quarkus.datasource.password", "");
    }

    @Override
    public void stop() {
        // the shared server lives for the JVM
    }
}
