package dev.exactly.isolation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.exactly.testing.TestDatabase;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
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
    static final String CITUS_URL = "EXACTLY_CITUS_URL";

    /** Every spec against a freshly migrated database on the embedded PostgreSQL. */
    @Test
    void specsPassOnTheEmbeddedPostgres() throws Exception {
        String db = TestDatabase.createMigratedDatabase();
        IsolationRegress.Target target = new IsolationRegress.Target("127.0.0.1", TestDatabase.server().getPort(),
                "postgres", null, db);
        assertPasses(tools().run(target, IsolationRegress.SOURCES, Path.of("target", "isolation", "embedded")));
    }

    /**
     * The same specs against the database {@value #CITUS_URL} names, migrated here with the
     * project's migrations (distributing its tables is the operator's step, done beforehand).
     * Expected outputs come from expected/, overridden by citus/expected/ where a cluster's
     * output differs. On Citus, isolationtester is given Citus' blocked-session check (see
     * {@link #globalWaits}) for the run. The database must hold no queues: each spec's teardown empties exactly's
     * tables, so it must be one given to tests.
     */
    @Test
    void specsPassOnTheCitusCluster() throws Exception {
        String url = System.getenv(CITUS_URL);
        Assumptions.assumeTrue(url != null && !url.isBlank(), CITUS_URL + " is not set: the isolation specs ran on "
                + "the embedded PostgreSQL only. Set it to postgresql://user[:password]@host[:port]/database of a "
                + "Citus coordinator (a database for tests: the specs empty exactly's tables) to run them there.");
        IsolationRegress.Target target = parse(url);
        String jdbc = "jdbc:postgresql://" + target.host() + ":" + target.port() + "/" + target.database();
        org.flywaydb.core.Flyway.configure()
                .dataSource(jdbc, target.user(), target.password())
                .schemas("exactly").defaultSchema("exactly").createSchemas(true)
                .locations("filesystem:sql")
                .load().migrate();
        try (Connection c = DriverManager.getConnection(jdbc, target.user(), target.password());
             Statement st = c.createStatement()) {
            try (ResultSet rs = st.executeQuery("SELECT count(*) FROM exactly.queues")) {
                rs.next();
                assertEquals(0, rs.getLong(1), CITUS_URL + " names a database that holds queues; the isolation "
                        + "specs empty exactly's tables, so give them a database of their own");
            }
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

    /** postgresql://user[:password]@host[:port]/database (postgres:// too; user defaults to postgres). */
    static IsolationRegress.Target parse(String url) {
        URI u = URI.create(url.trim());
        if (!"postgresql".equals(u.getScheme()) && !"postgres".equals(u.getScheme())
                || u.getHost() == null || u.getPath() == null || u.getPath().length() < 2) {
            throw new IllegalArgumentException(CITUS_URL + " must look like postgresql://user[:password]@host[:port]/"
                    + "database, not " + url);
        }
        String user = "postgres";
        String password = null;
        if (u.getRawUserInfo() != null) {
            String[] parts = u.getRawUserInfo().split(":", 2);
            user = URLDecoder.decode(parts[0], StandardCharsets.UTF_8);
            password = parts.length > 1 ? URLDecoder.decode(parts[1], StandardCharsets.UTF_8) : null;
        }
        return new IsolationRegress.Target(u.getHost(), u.getPort() < 0 ? 5432 : u.getPort(), user, password,
                u.getPath().substring(1));
    }
}
