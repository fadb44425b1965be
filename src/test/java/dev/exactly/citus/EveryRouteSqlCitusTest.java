package dev.exactly.citus;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.exactly.testing.AppDatabase;
import dev.exactly.testing.CitusCluster;
import dev.exactly.testing.CitusProfile;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Iterator;
import java.util.Map;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * {@link EveryRouteSql} on the Citus cluster ({@link CitusProfile}; skipped without one): every
 * route's SQL runs on the distributed schema, so a statement Citus refuses cannot hide in a path
 * no other test takes. A function may run on the coordinator or, delegated by its distribution
 * argument, on a worker; the calls of each node are added up. {@link CitusCluster#prepare} turns
 * function statistics on for the tests' database on every node.
 */
@QuarkusTest
@TestProfile(CitusProfile.class)
@EnabledIfEnvironmentVariable(named = CitusCluster.URL_VARIABLE, matches = ".+", disabledReason = CitusCluster.SKIPPED)
class EveryRouteSqlCitusTest extends EveryRouteSql {

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * push_bundle settles a bundle by settle_bundle on plain PostgreSQL only; on Citus by
     * push_segment. Pushes commit synchronously on Citus, so exactly.flush_needed() is false there
     * and flush_wal() is never asked for (sql/R__push.sql, "Commit before the WAL flush").
     */
    @Override
    java.util.Set<String> notRunHere() {
        return java.util.Set.of("settle_bundle", "flush_wal");
    }

    @Override
    Map<String, Long> functionCalls() throws Exception {
        try (Connection c = AppDatabase.connect()) {
            Map<String, Long> calls = RouteSql.calls(c);
            try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT success, result FROM "
                    + "run_command_on_workers($$SELECT coalesce(json_object_agg(funcname, calls), '{}') FROM "
                    + "(SELECT funcname, sum(calls) AS calls FROM pg_stat_user_functions WHERE schemaname = 'exactly' "
                    + "GROUP BY 1) f$$)")) {
                while (r.next()) {
                    if (!r.getBoolean(1)) {
                        throw new IllegalStateException("a worker's function statistics: " + r.getString(2));
                    }
                    JsonNode n = JSON.readTree(r.getString(2));
                    for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
                        Map.Entry<String, JsonNode> e = it.next();
                        calls.merge(e.getKey(), e.getValue().asLong(), Long::sum);
                    }
                }
            }
            return calls;
        }
    }
}
