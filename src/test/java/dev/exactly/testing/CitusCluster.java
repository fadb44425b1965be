package dev.exactly.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.stream.Collectors;

/**
 * The Citus cluster that the environment variable {@value #URL_VARIABLE} names (a coordinator:
 * postgresql://user[:password]@host[:port]/database), for the exactness tests that also run on a
 * distributed database. CI has none: those tests are then skipped with {@link #SKIPPED}.
 *
 * <p>The database the URL names is the tests' own: {@link #prepare()} drops its {@code exactly}
 * schema, applies the migrations (sql/) and distributes the schema with sql/citus/distribute.sql,
 * as an operator would (docs/citus.md), and turns function statistics on for it
 * (track_functions = pl, on every node). So that a database holding anyone's real data
 * is never emptied, it refuses a database whose {@code exactly} schema it did not create itself
 * (its mark is the table {@code public.exactly_test_cluster}).
 */
public final class CitusCluster {

    /** The environment variable that names the coordinator. */
    public static final String URL_VARIABLE = "EXACTLY_CITUS_URL";

    /** Why a cluster test did not run. */
    public static final String SKIPPED = URL_VARIABLE + " is not set: this test runs on a Citus cluster only. Set it to "
            + "postgresql://user[:password]@host[:port]/database of a Citus coordinator whose database is given to "
            + "tests (docs/contributing.md, \"Citus\").";

    private CitusCluster() {
    }

    /**
     * Where the coordinator is.
     *
     * @param host     host name or address
     * @param port     port
     * @param user     user name
     * @param password password, or null
     * @param database database name
     */
    public record Target(String host, int port, String user, String password, String database) {

        /** @return the JDBC URL of the database */
        public String jdbcUrl() {
            return "jdbc:postgresql://" + host + ":" + port + "/" + database;
        }

        /** @return the reactive client's URL of the database (user and password apart) */
        public String reactiveUrl() {
            return "postgresql://" + host + ":" + port + "/" + database;
        }

        /** @return a new JDBC connection to the database */
        public Connection connect() throws SQLException {
            return DriverManager.getConnection(jdbcUrl(), user, password == null ? "" : password);
        }

        /**
         * A Vert.x pool of its own on the database, as a separate engine instance would have.
         *
         * @param vertx   the Vert.x instance to run it on
         * @param maxSize most connections
         * @return the pool
         */
        public io.vertx.mutiny.sqlclient.Pool pool(io.vertx.mutiny.core.Vertx vertx, int maxSize) {
            io.vertx.pgclient.PgConnectOptions connect = io.vertx.pgclient.PgConnectOptions.fromUri(reactiveUrl())
                    .setUser(user).setPassword(password == null ? "" : password).setCachePreparedStatements(true);
            io.vertx.sqlclient.Pool core = io.vertx.pgclient.PgBuilder.pool()
                    .with(new io.vertx.sqlclient.PoolOptions().setMaxSize(maxSize))
                    .connectingTo(connect).using(vertx.getDelegate()).build();
            return io.vertx.mutiny.sqlclient.Pool.newInstance(core);
        }
    }

    /** @return whether {@value #URL_VARIABLE} is set */
    public static boolean configured() {
        String url = System.getenv(URL_VARIABLE);
        return url != null && !url.isBlank();
    }

    /**
     * @return the coordinator {@value #URL_VARIABLE} names
     * @throws IllegalStateException when it is not set
     * @throws IllegalArgumentException when it is not a postgresql:// URL with a database
     */
    public static Target target() {
        if (!configured()) {
            throw new IllegalStateException(SKIPPED);
        }
        return parse(System.getenv(URL_VARIABLE));
    }

    /** postgresql://user[:password]@host[:port]/database (postgres:// too; user defaults to postgres). */
    public static Target parse(String url) {
        URI u = URI.create(url.trim());
        if (!"postgresql".equals(u.getScheme()) && !"postgres".equals(u.getScheme())
                || u.getHost() == null || u.getPath() == null || u.getPath().length() < 2) {
            throw new IllegalArgumentException(URL_VARIABLE + " must look like postgresql://user[:password]@host[:port]/"
                    + "database, not " + url);
        }
        String user = "postgres";
        String password = null;
        if (u.getRawUserInfo() != null) {
            String[] parts = u.getRawUserInfo().split(":", 2);
            user = URLDecoder.decode(parts[0], StandardCharsets.UTF_8);
            password = parts.length > 1 ? URLDecoder.decode(parts[1], StandardCharsets.UTF_8) : null;
        }
        return new Target(u.getHost(), u.getPort() < 0 ? 5432 : u.getPort(), user, password, u.getPath().substring(1));
    }

    /**
     * Empties the cluster for a test class: drops the {@code exactly} schema, migrates, distributes
     * (sql/citus/distribute.sql).
     *
     * @return the coordinator
     * @throws IllegalStateException when the database is not a Citus one, or holds an {@code exactly}
     *         schema these tests did not create
     */
    public static Target prepare() {
        return prepare(target());
    }

    /**
     * {@link #prepare()} for a given coordinator.
     *
     * @param t the coordinator
     * @return t
     */
    public static synchronized Target prepare(Target t) {
        try (Connection c = t.connect(); Statement st = c.createStatement()) {
            try (ResultSet rs = st.executeQuery("SELECT to_regproc('pg_catalog.create_distributed_table') IS NOT NULL, "
                    + "to_regnamespace('exactly') IS NOT NULL, to_regclass('public.exactly_test_cluster') IS NOT NULL")) {
                rs.next();
                if (!rs.getBoolean(1)) {
                    throw new IllegalStateException(URL_VARIABLE + " names a database without the Citus extension");
                }
                if (rs.getBoolean(2) && !rs.getBoolean(3)) {
                    throw new IllegalStateException(URL_VARIABLE + " names a database whose exactly schema these tests "
                            + "did not create; give the tests a database of their own");
                }
            }
            st.execute("CREATE TABLE IF NOT EXISTS public.exactly_test_cluster (prepared_at timestamptz)");
            // function statistics for every session opened from now on, on every node
            // (dev.exactly.citus.EveryRouteSqlCitusTest checks that every route's functions ran)
            st.execute("ALTER DATABASE " + t.database() + " SET track_functions = 'pl'");
            st.execute("SELECT run_command_on_workers(format('ALTER DATABASE %I SET track_functions = ''pl''', "
                    + "current_database()))");
            st.execute("INSERT INTO public.exactly_test_cluster VALUES (now())");
            st.execute("DROP SCHEMA IF EXISTS exactly CASCADE");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        org.flywaydb.core.Flyway.configure()
                .dataSource(t.jdbcUrl(), t.user(), t.password())
                .schemas("exactly").defaultSchema("exactly").createSchemas(true)
                .locations("classpath:db/migration") // sql/ as the build ships it (without sql/citus)
                .load().migrate();
        distribute(t);
        return t;
    }

    /** Runs sql/citus/distribute.sql on the coordinator, as {@code psql -f} would (its psql-only lines left out). */
    public static void distribute(Target t) {
        String script;
        try {
            script = Files.readAllLines(Path.of("sql", "citus", "distribute.sql"), StandardCharsets.UTF_8).stream()
                    .filter(line -> !line.startsWith("\\"))
                    .collect(Collectors.joining("\n"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try (Connection c = t.connect(); Statement st = c.createStatement()) {
            st.execute(script);
        } catch (SQLException e) {
            throw new IllegalStateException("sql/citus/distribute.sql failed: " + e.getMessage(), e);
        }
    }
}
