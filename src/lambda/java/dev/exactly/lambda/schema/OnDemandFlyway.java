package dev.exactly.lambda.schema;

import dev.exactly.db.DatabaseSessionConfig;
import dev.exactly.lambda.db.DatabaseCredentials;
import dev.exactly.lambda.secrets.SecretsManagerAccess;
import dev.exactly.lambda.secrets.SecretsConfig;
import dev.exactly.schema.FlywaySource;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The Lambda shape's {@link FlywaySource}: a plain Flyway (no quarkus-flyway, no Agroal datasource
 * and no transaction manager in the Lambda build, so a cold start builds none of them) made on the
 * migrate call, never at start-up. Its datasource is the PostgreSQL driver's own non-pooling one;
 * Flyway opens its connections for the command and closes them after it, so nothing stays open.
 * Its settings are the server shape's {@code quarkus.flyway.*} ones
 * (src/server/resources/META-INF/microprofile-config.properties): schema {@value #SCHEMA}, created
 * when missing and the default schema, so the history table is the one the server's Flyway
 * keeps. The migrations are found in {@value #LOCATION} through the class loader that loaded this
 * class: under the Lambda runtime client that is its class loader over the task root, where the
 * package's own classes and resources, db/migration included, lie as plain files.
 *
 * <p>Where it connects, as whom:
 * <ul>
 * <li>As deployed by infra/terraform ({@value #ADMIN_SECRET} set): to the database instance
 *     itself ({@value #ADMIN_URL}, not through the RDS Proxy), as the master user whose
 *     credentials RDS keeps and rotates in {@value #ADMIN_SECRET}, read now. After migrating it
 *     makes and keeps the application role the requests use ({@link ApplicationRole}; its name
 *     {@value #APP_USER}, its secret {@value DatabaseCredentials#SECRET}).</li>
 * <li>Otherwise: on the reactive URL with {@code jdbc:} in front (the same server and sslmode),
 *     with the credentials of {@value DatabaseCredentials#SECRET} when set, else
 *     {@code quarkus.datasource.username} and {@code password}.</li>
 * </ul>
 */
@ApplicationScoped
public class OnDemandFlyway implements FlywaySource {

    /** The schema the migrations create and use (sql/ names its objects in it). */
    public static final String SCHEMA = "exactly";
    /** Where the migrations (sql/, without sql/citus) are packaged. */
    public static final String LOCATION = "classpath:db/migration";
    /** The config key naming the master user's secret (RDS's own, {"username","password"}). */
    public static final String ADMIN_SECRET = "exactly.secrets.database-admin";
    /** The config key with the URL the migrate step connects to (postgresql://host:port/db?sslmode=require). */
    public static final String ADMIN_URL = "exactly.secrets.database-admin-url";
    /** The config key naming the application role (default exactly_app). */
    public static final String APP_USER = "exactly.secrets.database-app-user";

    private final String reactiveUrl;
    private final Optional<String> username;
    private final Optional<String> password;
    private final Optional<String> adminSecret;
    private final Optional<String> adminUrl;
    private final String appUser;
    private final Optional<String> appSecret;
    private final Optional<String> region;
    private final Optional<String> endpoint;
    private final DatabaseSessionConfig limits;

    /**
     * Constructor injection (the bean is made on the first migrate call).
     *
     * @param reactiveUrl {@code quarkus.datasource.reactive.url}, postgresql://host:port/db[?params]
     * @param username    {@code quarkus.datasource.username}
     * @param password    {@code quarkus.datasource.password}
     * @param secrets     exactly.secrets.*: {@value #ADMIN_SECRET}, {@value #ADMIN_URL}, {@value #APP_USER},
     *                    {@value DatabaseCredentials#SECRET}, the region and endpoint
     * @param limits      the application role's session limits
     */
    public OnDemandFlyway(@ConfigProperty(name = "quarkus.datasource.reactive.url") String reactiveUrl,
            @ConfigProperty(name = "quarkus.datasource.username") Optional<String> username,
            @ConfigProperty(name = "quarkus.datasource.password") Optional<String> password,
            SecretsConfig secrets, DatabaseSessionConfig limits) {
        this.reactiveUrl = reactiveUrl;
        this.username = username;
        this.password = password;
        this.adminSecret = secrets.databaseAdmin().filter(s -> !s.isBlank());
        this.adminUrl = secrets.databaseAdminUrl().filter(s -> !s.isBlank());
        this.appUser = secrets.databaseAppUser();
        this.appSecret = secrets.database().filter(s -> !s.isBlank());
        this.region = secrets.region();
        this.endpoint = secrets.endpoint();
        this.limits = limits;
    }

    @Override
    public Flyway flyway() {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        FluentConfiguration flyway = Flyway.configure(OnDemandFlyway.class.getClassLoader())
                .locations(LOCATION)
                .schemas(SCHEMA)
                .defaultSchema(SCHEMA)
                .createSchemas(true);
        if (adminSecret.isPresent()) {
            SecretsManagerAccess access = SecretsManagerAccess.of(region.orElse(null), endpoint.orElse(null));
            DatabaseCredentials.Credentials admin = DatabaseCredentials.parse(access.currentString(adminSecret.get())
                    .orElseThrow(() -> new IllegalStateException("the master user's secret " + adminSecret.get() + " has no value")),
                    adminSecret.get());
            dataSource.setURL("jdbc:" + adminUrl.orElse(reactiveUrl));
            dataSource.setUser(admin.username());
            dataSource.setPassword(admin.password());
            if (appSecret.isEmpty()) {
                throw new IllegalStateException(ADMIN_SECRET + " is set but " + DatabaseCredentials.SECRET
                        + " is not: the migrate step needs the application role's secret to write");
            }
            flyway.callbacks(new ApplicationRole(appUser, access, appSecret.get(), limits));
        } else {
            dataSource.setURL("jdbc:" + reactiveUrl);
            if (appSecret.isPresent()) {
                SecretsManagerAccess access = SecretsManagerAccess.of(region.orElse(null), endpoint.orElse(null));
                DatabaseCredentials.Credentials app = new DatabaseCredentials(access, appSecret.get()).current();
                dataSource.setUser(app.username());
                dataSource.setPassword(app.password());
            } else {
                username.ifPresent(dataSource::setUser);
                password.ifPresent(dataSource::setPassword);
            }
        }
        return flyway.dataSource(dataSource).load();
    }
}
