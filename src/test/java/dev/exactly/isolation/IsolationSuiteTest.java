package dev.exactly.isolation;

import static org.junit.jupiter.api.Assertions.fail;

import dev.exactly.testing.CitusCluster;
import dev.exactly.testing.TestDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The isolation suite (src/test/isolation): interleavings of the SQL functions' sessions, each
 * permutation run by PostgreSQL's isolationtester and compared with the expected output, which
 * states the verdicts. See {@link IsolationRegress}.
 */
class IsolationSuiteTest {

    /** A Citus coordinator to run the same specs on: postgresql://user[:password]@host[:port]/database. */
    static final String CITUS_URL = CitusCluster.URL_VARIABLE;

    /** Every spec against a freshly migrated database on the embedded PostgreSQL. */
    @Test
    void specsPassOnTheEmbeddedPostgres() throws Exception {
        String db = TestDatabase.createMigratedDatabase();
        IsolationRegress.Target target = new IsolationRegress.Target("127.0.0.1", TestDatabase.server().getPort(),
                "postgres", null, db);
        assertPasses(tools().run(target, IsolationRegress.SOURCES, Path.of("target", "isolation", "embedded")));
    }

    /**
     * The same specs against the Citus coordinator {@value #CITUS_URL} names, emptied, migrated and
     * distributed first ({@link CitusCluster#prepare()}, as an operator distributes it:
     * docs/citus.md). Expected outputs come from expected/, overridden by citus/expected/
     * where a cluster's output differs. On Citus, isolationtester is given Citus' blocked-session
     * check (see {@link #globalWaits}) for the run.
     */
    @Test
    void specsPassOnTheCitusCluster() throws Exception {
        Assumptions.assumeTrue(CitusCluster.configured(), CITUS_URL + " is not set: the isolation specs ran on "
                + "the embedded PostgreSQL only. Set it to postgresql://user[:password]@host[:port]/database of a "
                + "Citus coordinator (a database for tests: the suite empties its exactly schema) to run them there.");
        CitusCluster.Target cluster = CitusCluster.prepare();
        IsolationRegress.Target target = new IsolationRegress.Target(cluster.host(), cluster.port(), cluster.user(),
                cluster.password(), cluster.database());
        try (Connection c = cluster.connect(); Statement st = c.createStatement()) {
            st.execute("DROP SCHEMA IF EXISTS iso CASCADE"); // the specs' own schema, left by an interrupted run
            boolean citus = globalWaits(st, "replace");
            try {
                Path expected = IsolationRegress.citusExpected(Path.of("target", "isolation", "citus-expected"));
                assertPasses(tools().run(target, expected, Path.of("target", "isolation", "citus")));
            } finally {
                if (citus) {
                    globalWaits(st, "restore");
                }
            }
        }
    }

    /**
     * On a Citus database, swaps the blocked-session check isolationtester asks
     * (pg_isolation_test_session_is_blocked, local lock waits only) for Citus' own, which also
     * sees a step waiting on a worker node, with the functions Citus ships for its isolation
     * tests ({@code citus_internal.replace_isolation_tester_func} / {@code restore_…}); and back.
     *
     * @return whether the database has them (is a Citus database)
     */
    private static boolean globalWaits(Statement st, String action) throws java.sql.SQLException {
        String fn = "citus_internal." + action + "_isolation_tester_func";
        try (ResultSet rs = st.executeQuery("SELECT to_regproc('" + fn + "') IS NOT NULL")) {
            rs.next();
            if (!rs.getBoolean(1)) {
                return false;
            }
        }
        st.execute("SELECT " + fn + "()");
        return true;
    }

    private static IsolationRegress tools() throws Exception {
        try (Connection c = TestDatabase.server().getPostgresDatabase().getConnection()) {
            return IsolationRegress.of(c);
        }
    }

    private static void assertPasses(IsolationRegress.Result r) {
        if (r.exitCode() != 0) {
            fail("isolation specs failed (pg_isolation_regress exit " + r.exitCode() + ")\n" + r.output()
                    + "\n" + r.diffs());
        }
    }
}
