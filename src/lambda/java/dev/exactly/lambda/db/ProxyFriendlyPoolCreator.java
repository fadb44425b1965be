package dev.exactly.lambda.db;

import dev.exactly.lambda.secrets.SecretsManagerAccess;
import dev.exactly.lambda.secrets.SecretsConfig;
import io.quarkus.reactive.pg.client.PgPoolCreator;
import io.vertx.core.Future;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.spi.PgDriver;
import io.vertx.sqlclient.Pool;
import jakarta.inject.Singleton;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * Makes the Lambda shape's reactive pool (Quarkus calls a {@link PgPoolCreator} bean instead of
 * building the pool itself). With {@value DatabaseCredentials#SECRET} set, as infra/terraform sets
 * it, the deployment runs behind an RDS Proxy as the application role, and each new connection:
 * <ul>
 * <li>logs in with the role's credentials read from Secrets Manager at that moment
 *     ({@link DatabaseCredentials}, on a worker thread, kept a minute);</li>
 * <li>sends no session limits as startup parameters: {@code statement_timeout},
 *     {@code lock_timeout} and {@code idle_in_transaction_session_timeout} (application.properties
 *     sends them to a plain server) are the role's own settings there, made by the migrate step
 *     ({@code ALTER ROLE ... SET}), because the proxy refuses or pins what a client sets for its
 *     session (docs/deploy-aws.md, "RDS Proxy and pinning").</li>
 * </ul>
 * Prepared statements are not cached in the Lambda profile (application.properties), so each
 * statement goes as an unnamed one. Without {@value DatabaseCredentials#SECRET} the pool is what
 * Quarkus would build from its configuration.
 */
@Singleton
public class ProxyFriendlyPoolCreator implements PgPoolCreator {

    /** Session settings the application role carries instead of each connection. */
    static final Set<String> ROLE_SETTINGS = Set.of("statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout");

    private final Optional<String> secret;
    private final Optional<String> region;
    private final Optional<String> endpoint;

    /** @param secrets exactly.secrets.*: {@value DatabaseCredentials#SECRET}, the region and endpoint */
    public ProxyFriendlyPoolCreator(SecretsConfig secrets) {
        this.secret = secrets.database().filter(s -> !s.isBlank());
        this.region = secrets.region();
        this.endpoint = secrets.endpoint();
    }

    @Override
    public Pool create(Input input) {
        List<PgConnectOptions> configured = input.pgConnectOptionsList();
        if (secret.isEmpty()) {
            return PgDriver.INSTANCE.createPool(input.vertx(), configured, input.poolOptions());
        }
        if (configured.size() != 1) {
            throw new IllegalStateException("the Lambda shape connects to one database (the RDS Proxy): "
                    + configured.size() + " URLs are configured");
        }
        PgConnectOptions template = withoutRoleSettings(configured.get(0));
        DatabaseCredentials credentials = new DatabaseCredentials(
                SecretsManagerAccess.of(region.orElse(null), endpoint.orElse(null)), secret.get());
        Logger.getLogger(ProxyFriendlyPoolCreator.class).infof(
                "database: connections log in with the credentials of Secrets Manager secret %s, read when they open; "
                        + "%s are the role's own settings, not sent when connecting", secret.get(), ROLE_SETTINGS);
        Supplier<Future<PgConnectOptions>> perConnection = () -> input.vertx()
                .executeBlocking(credentials::current, false)
                .map(c -> new PgConnectOptions(template).setUser(c.username()).setPassword(c.password()));
        return PgDriver.INSTANCE.createPool(input.vertx(), perConnection, input.poolOptions());
    }

    /** @return a copy of options whose startup parameters leave out {@link #ROLE_SETTINGS} */
    static PgConnectOptions withoutRoleSettings(PgConnectOptions options) {
        Map<String, String> properties = new HashMap<>(options.getProperties());
        properties.keySet().removeAll(ROLE_SETTINGS);
        return new PgConnectOptions(options).setProperties(properties);
    }
}
