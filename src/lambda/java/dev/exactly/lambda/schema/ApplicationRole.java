package dev.exactly.lambda.schema;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.exactly.db.DatabaseSessionConfig;
import dev.exactly.lambda.db.DatabaseCredentials;
import dev.exactly.lambda.secrets.SecretsManagerAccess;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;
import org.flywaydb.core.api.callback.BaseCallback;
import org.flywaydb.core.api.callback.Context;
import org.flywaydb.core.api.callback.Event;
import org.jboss.logging.Logger;
import org.postgresql.PGConnection;

/**
 * The least-privilege role the Lambda shape's requests run as, made and kept by the migrate step
 * (a Flyway callback after every migrate, on the migration's connection, as the master user, in
 * its transaction). The schema and everything in it stay the master user's; the role may:
 * <ul>
 * <li>log in (LOGIN; no SUPERUSER, CREATEDB, CREATEROLE or REPLICATION);</li>
 * <li>use the schema {@value OnDemandFlyway#SCHEMA}: SELECT, INSERT, UPDATE, DELETE on its tables
 *     (not on Flyway's history table), USAGE and SELECT on its sequences, EXECUTE on its
 *     functions and procedures. Granted again on every run, so objects a release adds are
 *     covered. No DDL: nothing at run time creates or alters an object.</li>
 * </ul>
 * Its session limits are role settings ({@code ALTER ROLE ... SET statement_timeout},
 * {@code lock_timeout}, {@code idle_in_transaction_session_timeout}, from exactly.database.*), so
 * connections through the RDS Proxy need not set them (see ProxyFriendlyPoolCreator).
 *
 * <p>Its password lives in its Secrets Manager secret ({@value DatabaseCredentials#SECRET}),
 * which is the source of truth: when the secret has no value yet, a random password is made
 * (32 random bytes, URL-safe base64) and written there first (PutSecretValue); then the role's
 * password is set to the secret's, on every run, as a SCRAM-SHA-256 verifier computed here
 * (PgJDBC's alterUserPassword), so the password itself never appears in SQL or the server's log.
 * A run that fails after writing the secret is repaired by the next one.
 */
public final class ApplicationRole extends BaseCallback {

    private static final Logger LOG = Logger.getLogger(ApplicationRole.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** A role name used unquoted in SQL: what infra/terraform's db_app_username accepts. */
    private static final Pattern ROLE_NAME = Pattern.compile("[a-z][a-z0-9_]{0,62}");

    private final String role;
    private final SecretsManagerAccess access;
    private final String secretId;
    private final DatabaseSessionConfig limits;

    /**
     * @param role     the role's name (lowercase letters, digits and '_', starting with a letter)
     * @param access   Secrets Manager
     * @param secretId the role's secret (ARN)
     * @param limits   the session limits the role gets
     * @throws IllegalArgumentException for a role name outside that rule
     */
    public ApplicationRole(String role, SecretsManagerAccess access, String secretId, DatabaseSessionConfig limits) {
        if (!ROLE_NAME.matcher(role).matches()) {
            throw new IllegalArgumentException("exactly.secrets.database-app-user: '" + role
                    + "' is not a role name of lowercase letters, digits and '_', starting with a letter");
        }
        this.role = role;
        this.access = access;
        this.secretId = secretId;
        this.limits = limits;
    }

    @Override
    public boolean supports(Event event, Context context) {
        return event == Event.AFTER_MIGRATE;
    }

    @Override
    public boolean canHandleInTransaction(Event event, Context context) {
        return true;
    }

    @Override
    public String getCallbackName() {
        return "exactly application role";
    }

    @Override
    public void handle(Event event, Context context) {
        try {
            apply(context.getConnection());
        } catch (SQLException e) {
            throw new IllegalStateException("the migrate step could not make the application role " + role + ": " + e.getMessage(), e);
        }
    }

    /**
     * Makes or updates the role on connection (as a user that may create roles and owns the schema).
     *
     * @param connection the migration's connection
     * @throws SQLException when a statement fails
     */
    void apply(Connection connection) throws SQLException {
        DatabaseCredentials.Credentials credentials = credentials();
        if (!credentials.username().equals(role)) {
            throw new IllegalStateException("the secret " + secretId + " names the user '" + credentials.username()
                    + "', not the application role '" + role + "'");
        }
        String schema = OnDemandFlyway.SCHEMA;
        try (Statement s = connection.createStatement()) {
            // only LOGIN on an existing role: naming SUPERUSER, REPLICATION or BYPASSRLS at all (even
            // to refuse them) needs those attributes, which RDS's master user does not have
            s.execute("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = '" + role + "') THEN "
                    + "CREATE ROLE " + role + " LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS; END IF; END $$");
            s.execute("ALTER ROLE " + role + " LOGIN");
        }
        connection.unwrap(PGConnection.class).alterUserPassword(role, credentials.password().toCharArray(), "scram-sha-256");
        try (Statement s = connection.createStatement()) {
            s.execute("ALTER ROLE " + role + " SET statement_timeout = " + limits.statementTimeoutMs());
            s.execute("ALTER ROLE " + role + " SET lock_timeout = " + limits.lockTimeoutMs());
            s.execute("ALTER ROLE " + role + " SET idle_in_transaction_session_timeout = " + limits.idleInTransactionTimeoutMs());
            s.execute("DO $$ BEGIN EXECUTE format('GRANT CONNECT ON DATABASE %I TO " + role + "', current_database()); END $$");
            s.execute("GRANT USAGE ON SCHEMA " + schema + " TO " + role);
            s.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA " + schema + " TO " + role);
            s.execute("REVOKE ALL ON TABLE " + schema + ".flyway_schema_history FROM " + role);
            s.execute("GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA " + schema + " TO " + role);
            s.execute("GRANT EXECUTE ON ALL ROUTINES IN SCHEMA " + schema + " TO " + role);
        }
        LOG.infof("migrate: application role %s has data rights on schema %s (statement_timeout %d ms, lock_timeout %d ms, "
                        + "idle_in_transaction_session_timeout %d ms); its password is the one in %s",
                role, schema, limits.statementTimeoutMs(), limits.lockTimeoutMs(), limits.idleInTransactionTimeoutMs(), secretId);
    }

    /** The secret's credentials; when it has none yet, new ones, written to it first. */
    private DatabaseCredentials.Credentials credentials() {
        Optional<String> current = access.currentString(secretId);
        if (current.isPresent()) {
            return DatabaseCredentials.parse(current.get(), secretId);
        }
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        String password = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
        Map<String, String> value = new LinkedHashMap<>();
        value.put("username", role);
        value.put("password", password);
        try {
            access.put(secretId, JSON.writeValueAsString(value), UUID.randomUUID().toString());
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        LOG.infof("migrate: made a password for the application role %s and wrote it to %s", role, secretId);
        return new DatabaseCredentials.Credentials(role, password);
    }
}
