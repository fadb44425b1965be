package dev.exactly.lambda;

import static dev.exactly.lambda.LambdaRuntimeIT.ARN;
import static dev.exactly.lambda.LambdaRuntimeIT.assertProblem;
import static dev.exactly.lambda.LambdaRuntimeIT.call;
import static dev.exactly.lambda.LambdaRuntimeIT.push;
import static dev.exactly.lambda.LambdaRuntimeIT.withKey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.exactly.lambda.runtime.FakeSecretsManager;
import dev.exactly.lambda.runtime.FunctionProcess;
import dev.exactly.lambda.runtime.PgWireRecorder;
import dev.exactly.lambda.runtime.RuntimeApiServer;
import dev.exactly.testing.Api;
import dev.exactly.testing.SqlMigrations;
import dev.exactly.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The deploy sequence of docs/deploy-aws.md under the Lambda runtime interface client, against a
 * fresh database, configured exactly as infra/terraform configures the function: the settings
 * document names the application role's secret (created without a value), the master user's
 * secret (as RDS keeps it) and the URL of the instance for the migrate step; requests go through
 * a relay standing where the RDS Proxy stands ({@link PgWireRecorder}), which records what each
 * connection sends.
 *
 * <ol>
 * <li>Before the migrate step every request answers 503 problem+json naming
 *     {@code POST /api/v1/admin/migrate} (the function cannot log in yet: the role does not
 *     exist and its secret has no value). So does a function configured with plain credentials
 *     on a database without the schema (PostgreSQL's 3F000), which answered a bare 500 before.</li>
 * <li>The migrate step, as the master user (a CREATEROLE user owning the database, as RDS's is,
 *     not a superuser), applies sql/, makes the application role with data rights only and its
 *     session limits as role settings, and writes its password into its secret.</li>
 * <li>Requests then run as that role; the scheduled maintenance too; the role can change no
 *     schema; what its connections send holds nothing AWS documents as pinning an RDS Proxy
 *     connection (a control with the prepared-statement cache on shows the check sees it).</li>
 * </ol>
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LambdaDeployIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String ADMIN = "exactly_master_it";
    private static final String ADMIN_PASSWORD = "master-password-kept-by-rds";
    private static final String APP = "exactly_app";
    private static final String SETTINGS = ARN + "deploy-settings-AbCdEf";
    private static final String APP_SECRET = ARN + "deploy-db-app-AbCdEf";
    private static final String ADMIN_SECRET = ARN + "rds!db-0a1b2c3d-AbCdEf";
    /** What AWS documents as pinning an RDS Proxy PostgreSQL session, as statement text. */
    private static final Pattern PINNING = Pattern.compile(
            "(?is)^\\s*(SET|RESET|LISTEN|UNLISTEN|PREPARE|DEALLOCATE|DISCARD|DECLARE|LOAD|CREATE\\s+TEMP)\\b|pg_advisory_lock|set_config\\s*\\(");

    private static String database;
    private static FakeSecretsManager secrets;
    private static RuntimeApiServer runtime;
    private static PgWireRecorder proxy;
    private static FunctionProcess function;

    @BeforeAll
    static void start() throws Exception {
        database = TestDatabase.createDatabase();
        sql("postgres", "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '" + ADMIN + "') THEN "
                + "CREATE ROLE " + ADMIN + " LOGIN CREATEROLE PASSWORD '" + ADMIN_PASSWORD + "'; END IF; END $$");
        sql("postgres", "ALTER DATABASE " + database + " OWNER TO " + ADMIN);
        secrets = new FakeSecretsManager();
        // as infra/terraform leaves them: the role's secret without a value, RDS's master secret
        secrets.putWithoutValue(APP_SECRET);
        secrets.put(ADMIN_SECRET, JSON.writeValueAsString(Map.of("username", ADMIN, "password", ADMIN_PASSWORD)));
        secrets.put(ARN + "deploy-webhook-github-AbCdEf", "github-secret");
        runtime = new RuntimeApiServer();
        proxy = new PgWireRecorder(TestDatabase.server().getPort());
        function = FunctionProcess.start("deploy", runtime, environment(secrets, proxy, Map.of()));
    }

    @AfterAll
    static void stop() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {function, runtime, proxy, secrets}) {
            if (c != null) {
                c.close();
            }
        }
    }

    /**
     * As infra/terraform configures both functions (function.tf's local.environment, secrets.tf's
     * settings document), with the relay in place of the RDS Proxy endpoint.
     */
    static Map<String, String> environment(FakeSecretsManager sm, PgWireRecorder relay, Map<String, String> extra) throws Exception {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("exactly.webhooks.sources.github.preset", "github");
        properties.put("exactly.secrets.database", APP_SECRET);
        properties.put("exactly.secrets.database-admin", ADMIN_SECRET);
        properties.put("exactly.secrets.database-admin-url", TestDatabase.reactiveUrl(database));
        properties.put("exactly.secrets.database-app-user", APP);
        sm.put(SETTINGS, JSON.writeValueAsString(Map.of("properties", properties,
                "secrets", Map.of("exactly.webhooks.sources.github.secret", ARN + "deploy-webhook-github-AbCdEf"),
                "revision", List.of())));
        Map<String, String> env = new HashMap<>();
        env.put("QUARKUS_PROFILE", "lambda");
        env.put("QUARKUS_DATASOURCE_REACTIVE_URL", "postgresql://127.0.0.1:" + relay.port() + "/" + database);
        env.put("EXACTLY_AUTH_API_KEY_SHA256", HexFormat.of().formatHex(
                java.security.MessageDigest.getInstance("SHA-256").digest(Api.TEST_API_KEY.getBytes(StandardCharsets.UTF_8))));
        env.put("EXACTLY_SECRETS_DOCUMENT", SETTINGS);
        env.put("EXACTLY_SECRETS_ENDPOINT", sm.endpoint());
        env.put("EXACTLY_SECRETS_VERSION", "a1b2c3d4-5678-90ab-cdef-333333333333");
        env.putAll(extra);
        return env;
    }

    @Test
    @Order(1)
    void beforeTheMigrateStepARequestAnswers503NamingIt() throws Exception {
        LambdaRuntimeIT.Answer a = call(runtime, withKey("POST", "/api/v1/push").json(push("deploy", "before-migrate")));
        assertNotMigrated(a);
        assertTrue(function.alive(), "the function keeps running");
    }

    /**
     * The case the issue saw: plain credentials (a role that exists) on a database without the
     * schema. PostgreSQL answers 3F000 (schema "exactly" does not exist); before, every push got
     * a bare 500 "An unexpected error occurred".
     */
    @Test
    @Order(2)
    void aDatabaseWithoutTheSchemaAnswers503NamingTheMigrateStep() throws Exception {
        String fresh = TestDatabase.createDatabase();
        try (FakeSecretsManager sm = new FakeSecretsManager(); RuntimeApiServer api = new RuntimeApiServer();
             FunctionProcess plain = FunctionProcess.start("no-schema", api, Map.of(
                     "QUARKUS_PROFILE", "lambda",
                     "QUARKUS_DATASOURCE_REACTIVE_URL", TestDatabase.reactiveUrl(fresh),
                     "QUARKUS_DATASOURCE_USERNAME", "postgres",
                     "EXACTLY_AUTH_API_KEY_SHA256", HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                             .digest(Api.TEST_API_KEY.getBytes(StandardCharsets.UTF_8)))))) {
            LambdaRuntimeIT.Answer a = call(api, withKey("POST", "/api/v1/push").json(push("deploy", "no-schema")));
            assertNotMigrated(a);
            assertTrue(plain.output().contains("does not exist"), "the log says why: " + plain.output());
        }
    }

    @Test
    @Order(3)
    void theMigrateStepMakesTheSchemaAndTheApplicationRole() throws Exception {
        LambdaRuntimeIT.Answer a = call(runtime, withKey("POST", "/api/v1/admin/migrate"));
        assertEquals(200, a.status(), a.body() + "\n" + function.output());
        assertEquals(SqlMigrations.files().size(), a.json().path("migrationsExecuted").asInt(), a.body());
        assertEquals(List.of(APP_SECRET), secrets.writes(), "the role's password is written to its secret, once");
        JsonNode written = JSON.readTree(secrets.value(APP_SECRET));
        assertEquals(APP, written.path("username").asText());
        assertTrue(written.path("password").asText().length() >= 40, "a long random password");
        try (Connection c = DriverManager.getConnection(TestDatabase.jdbcUrl(database), "postgres", "");
             Statement s = c.createStatement()) {
            ResultSet r = s.executeQuery("SELECT rolsuper, rolcreaterole, rolcreatedb, rolcanlogin, rolreplication, rolbypassrls"
                    + " FROM pg_roles WHERE rolname = '" + APP + "'");
            assertTrue(r.next(), "the role exists");
            assertEquals(List.of(false, false, false, true, false, false),
                    List.of(r.getBoolean(1), r.getBoolean(2), r.getBoolean(3), r.getBoolean(4), r.getBoolean(5), r.getBoolean(6)));
            r = s.executeQuery("SELECT setconfig FROM pg_db_role_setting WHERE setrole = '" + APP + "'::regrole AND setdatabase = 0");
            assertTrue(r.next(), "the role has settings");
            Set<String> settings = new TreeSet<>(List.of((String[]) r.getArray(1).getArray()));
            assertEquals(Set.of("idle_in_transaction_session_timeout=30000", "lock_timeout=5000", "statement_timeout=10000"), settings,
                    "the session limits (exactly.database.* defaults) are the role's own");
            r = s.executeQuery("SELECT nspowner::regrole::text FROM pg_namespace WHERE nspname = 'exactly'");
            assertTrue(r.next());
            assertEquals(ADMIN, r.getString(1), "the master user owns the schema");
        }
    }

    @Test
    @Order(4)
    void requestsRunAsTheApplicationRole() throws Exception {
        LambdaRuntimeIT.Answer first = call(runtime, withKey("POST", "/api/v1/push").json(push("deploy", "after-migrate")));
        assertEquals(200, first.status(), first.body() + "\n" + function.output());
        assertEquals("queued", first.json().at("/results/0/status").asText());
        LambdaRuntimeIT.Answer again = call(runtime, withKey("POST", "/api/v1/push").json(push("deploy", "after-migrate")));
        assertEquals("duplicate", again.json().at("/results/0/status").asText());
        try (Connection c = DriverManager.getConnection(TestDatabase.jdbcUrl(database), "postgres", "");
             Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT DISTINCT usename FROM pg_stat_activity WHERE datname = current_database()"
                     + " AND application_name = 'exactly'")) {
            assertTrue(r.next(), "the function holds a connection");
            assertEquals(APP, r.getString(1));
            assertFalse(r.next(), "and only as the application role");
        }
    }

    @Test
    @Order(5)
    void theApplicationRoleHasDataRightsOnly() throws Exception {
        String password = JSON.readTree(secrets.value(APP_SECRET)).path("password").asText();
        try (Connection c = DriverManager.getConnection(TestDatabase.jdbcUrl(database), APP, password); Statement s = c.createStatement()) {
            ResultSet r = s.executeQuery("SHOW statement_timeout");
            r.next();
            assertEquals("10s", r.getString(1), "a session of the role starts with its limits, nothing sent");
            r = s.executeQuery("SELECT count(*) FROM exactly.messages");
            r.next();
            assertEquals(1, r.getLong(1), "it reads the data");
            for (String ddl : List.of("CREATE TABLE exactly.intruder (id int)", "DROP TABLE exactly.messages",
                    "ALTER TABLE exactly.messages ADD COLUMN x int", "SELECT * FROM exactly.flyway_schema_history",
                    "CREATE FUNCTION exactly.f() RETURNS int LANGUAGE sql AS 'SELECT 1'", "CREATE ROLE intruder")) {
                SQLException e = org.junit.jupiter.api.Assertions.assertThrows(SQLException.class, () -> s.execute(ddl), ddl);
                assertEquals("42501", e.getSQLState(), ddl + ": " + e.getMessage());
            }
        }
    }

    /** EventBridge's scheduled event, as maintenance.tf's rule sends it to the maintenance function. */
    @Test
    @Order(6)
    void maintenanceRunsAsTheApplicationRole() throws Exception {
        RuntimeApiServer.Outcome o = runtime.invoke(LambdaRuntimeIT.scheduleEvent().getBytes(StandardCharsets.UTF_8), TIMEOUT);
        assertNotNull(o.response(), "maintenance failed: " + o.error() + "\n" + function.output());
        JsonNode report = JSON.readTree(o.response());
        assertTrue(report.has("partitions") && report.has("purgedMessages"), o.response());
    }

    @Test
    @Order(7)
    void aSecondMigrateKeepsThePassword() throws Exception {
        String before = secrets.value(APP_SECRET);
        LambdaRuntimeIT.Answer a = call(runtime, withKey("POST", "/api/v1/admin/migrate"));
        assertEquals(200, a.status(), a.body());
        assertEquals(0, a.json().path("migrationsExecuted").asInt(), a.body());
        assertEquals(1, secrets.writes().size(), "nothing written: the secret had a value");
        assertEquals(before, secrets.value(APP_SECRET));
        assertEquals(200, call(runtime, withKey("POST", "/api/v1/push").json(push("deploy", "after-second-migrate"))).status());
    }

    /**
     * What the function's connections sent through the relay: no session limit (or any option) as
     * a startup parameter, only unnamed statements, no SET, LISTEN, PREPARE, cursor, temporary
     * object, advisory lock or set_config. A control with the prepared-statement cache on shows
     * named statements, so the check can see what it looks for.
     */
    @Test
    @Order(8)
    void theApplicationRolesSessionsHoldNothingThatPinsAProxyConnection() throws Exception {
        List<String> found = pinning(proxy.sessions(), APP);
        assertEquals(List.of(), found, "what an RDS Proxy would pin for");
        long statements = proxy.sessions().stream().filter(s -> APP.equals(s.startup().get("user")))
                .mapToLong(s -> s.statements().size()).sum();
        assertTrue(statements > 5, "the relay saw the requests' statements: " + statements);
        System.out.printf("LambdaDeployIT: %d connections as %s sent %d statements, none named; startup parameters %s%n",
                proxy.sessions().stream().filter(s -> APP.equals(s.startup().get("user"))).count(), APP, statements,
                proxy.sessions().stream().filter(s -> APP.equals(s.startup().get("user"))).findFirst().map(s -> s.startup().keySet()).orElse(null));

        try (RuntimeApiServer api = new RuntimeApiServer(); PgWireRecorder relay = new PgWireRecorder(TestDatabase.server().getPort());
             FunctionProcess cached = FunctionProcess.start("deploy-cached", api, environment(secrets, relay,
                     Map.of("QUARKUS_DATASOURCE_REACTIVE_CACHE_PREPARED_STATEMENTS", "true")))) {
            for (int i = 0; i < 2; i++) {
                assertEquals(200, call(api, withKey("POST", "/api/v1/push").json(push("deploy", "control-" + i))).status());
            }
            List<String> control = pinning(relay.sessions(), APP);
            assertTrue(control.stream().anyMatch(f -> f.startsWith("named statement")),
                    "with the cache on the check sees named statements: " + control);
        }
    }

    private static List<String> pinning(List<PgWireRecorder.Session> sessions, String user) {
        List<String> found = new ArrayList<>();
        for (PgWireRecorder.Session s : sessions) {
            if (!user.equals(s.startup().get("user"))) {
                continue;
            }
            for (String p : List.of("statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout", "options")) {
                if (s.startup().containsKey(p)) {
                    found.add("startup parameter " + p + "=" + s.startup().get(p));
                }
            }
            for (PgWireRecorder.Statement st : s.statements()) {
                if (!st.name().isEmpty()) {
                    found.add("named statement " + st.name() + ": " + st.sql());
                }
                if (PINNING.matcher(st.sql()).find()) {
                    found.add("statement " + st.sql());
                }
            }
        }
        return found;
    }

    private static void assertNotMigrated(LambdaRuntimeIT.Answer a) throws Exception {
        assertProblem(a, 503);
        assertEquals("/problems/unavailable", a.json().path("type").asText(), a.body());
        assertTrue(a.json().path("detail").asText().contains("POST /api/v1/admin/migrate"), a.body());
        assertNotNull(a.header("retry-after"), a.headers().toString());
    }

    private static void sql(String db, String statement) throws SQLException {
        try (Connection c = DriverManager.getConnection(TestDatabase.jdbcUrl(db), "postgres", ""); Statement s = c.createStatement()) {
            s.execute(statement);
        }
    }
}
