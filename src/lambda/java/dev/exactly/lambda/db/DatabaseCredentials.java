package dev.exactly.lambda.db;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.exactly.db.NotMigratedException;
import dev.exactly.lambda.secrets.SecretsManagerAccess;
import java.io.IOException;
import java.util.Optional;

/**
 * The application role's credentials, read from its Secrets Manager secret when a database
 * connection opens ({@value #SECRET}: the ARN infra/terraform puts in the settings document). The
 * secret is {@code {"username": ..., "password": ...}}, the format the RDS Proxy reads too; the
 * migrate step writes it ({@code dev.exactly.lambda.schema.ApplicationRole}). Read at connect time,
 * not at start-up, because a function may start before the migrate step has made the role, and
 * because a changed password then needs no new function version.
 *
 * <p>A value is kept {@value #CACHE_MILLIS} ms by the wall clock (which, unlike
 * {@link System#nanoTime}, keeps counting across a SnapStart snapshot), so a restored instance
 * reads it again. A secret without a value means the migrate step has not run:
 * {@link NotMigratedException}, answered 503 naming that step.
 */
public final class DatabaseCredentials {

    /** The config key naming the application role's secret. */
    public static final String SECRET = "exactly.secrets.database";
    /** How long a read value is used before it is read again, in milliseconds. */
    static final long CACHE_MILLIS = 60_000;

    private static final ObjectMapper JSON = new ObjectMapper();

    /** A user name and its password. */
    public record Credentials(String username, String password) {
        @Override
        public String toString() {
            return "Credentials[username=" + username + "]";
        }
    }

    private final SecretsManagerAccess access;
    private final String secretId;
    private Credentials cached;
    private long cachedAt;

    /**
     * @param access   Secrets Manager
     * @param secretId the secret's ARN
     */
    public DatabaseCredentials(SecretsManagerAccess access, String secretId) {
        this.access = access;
        this.secretId = secretId;
    }

    /** @return the secret's ARN */
    public String secretId() {
        return secretId;
    }

    /**
     * Blocking (an HTTPS call when the kept value is older than {@value #CACHE_MILLIS} ms).
     *
     * @return the current credentials
     * @throws NotMigratedException when the secret has no value yet
     * @throws IllegalStateException when it cannot be read or is not {"username","password"}
     */
    public synchronized Credentials current() {
        long now = System.currentTimeMillis();
        if (cached != null && now - cachedAt >= 0 && now - cachedAt < CACHE_MILLIS) {
            return cached;
        }
        Optional<String> text = read(access, secretId);
        Credentials c = parse(text.orElseThrow(() -> new NotMigratedException("the application role's secret " + secretId
                + " has no value yet (the migrate step makes the role and writes it)", null)), secretId);
        cached = c;
        cachedAt = now;
        return c;
    }

    static Optional<String> read(SecretsManagerAccess access, String secretId) {
        try {
            return access.currentString(secretId);
        } catch (RuntimeException e) {
            throw new IllegalStateException("cannot read the database credentials from Secrets Manager secret '" + secretId
                    + "': " + e.getMessage(), e);
        }
    }

    /**
     * @param text     the secret string
     * @param secretId for messages
     * @return its username and password
     * @throws IllegalStateException when it is not a JSON object with both
     */
    public static Credentials parse(String text, String secretId) {
        try {
            JsonNode tree = JSON.readTree(text);
            String user = tree == null ? null : tree.path("username").asText(null);
            String password = tree == null ? null : tree.path("password").asText(null);
            if (user == null || password == null || user.isEmpty() || password.isEmpty()) {
                throw new IllegalStateException("the secret " + secretId + " must be {\"username\": ..., \"password\": ...}");
            }
            return new Credentials(user, password);
        } catch (IOException e) {
            throw new IllegalStateException("the secret " + secretId + " is not JSON ({\"username\": ..., \"password\": ...})");
        }
    }
}
