package dev.exactly.lambda.schema;

import dev.exactly.schema.FlywaySource;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.flywaydb.core.Flyway;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The Lambda shape's {@link FlywaySource}: a plain Flyway (no quarkus-flyway, no Agroal datasource
 * and no transaction manager in the Lambda build, so a cold start builds none of them) made on the
 * migrate call, never at start-up. Its datasource is the PostgreSQL driver's own non-pooling one
 * on the reactive URL with {@code jdbc:} in front (the same server, the same sslmode and
 * credentials); Flyway opens its connections for the command and closes them after it, so nothing
 * stays open. Its settings are the server shape's {@code quarkus.flyway.*} ones
 * (src/server/resources/META-INF/microprofile-config.properties): schema {@value #SCHEMA}, created
 * when missing and the default schema, so the history table is the one the server's Flyway
 * keeps. The migrations are found in {@value #LOCATION} through the class loader that loaded this
 * class: under the Lambda runtime client that is its class loader over the task root, where the
 * package's own classes and resources, db/migration included, lie as plain files.
 */
@ApplicationScoped
public class OnDemandFlyway implements FlywaySource {

    /** The schema the migrations create and use (sql/ names its objects in it). */
    public static final String SCHEMA = "exactly";
    /** Where the migrations (sql/, without sql/citus) are packaged. */
    public static final String LOCATION = "classpath:db/migration";

    private final String reactiveUrl;
    private final Optional<String> username;
    private final Optional<String> password;

    /**
     * Constructor injection (the bean is made on the first migrate call).
     *
     * @param reactiveUrl {@code quarkus.datasource.reactive.url}, postgresql://host:port/db[?params]
     * @param username    {@code quarkus.datasource.username}
     * @param password    {@code quarkus.datasource.password}
     */
    public OnDemandFlyway(@ConfigProperty(name = "quarkus.datasource.reactive.url") String reactiveUrl,
            @ConfigProperty(name = "quarkus.datasource.username") Optional<String> username,
            @ConfigProperty(name = "quarkus.datasource.password") Optional<String> password) {
        this.reactiveUrl = reactiveUrl;
        this.username = username;
        this.password = password;
    }

    @Override
    public Flyway flyway() {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL("jdbc:" + reactiveUrl);
        username.ifPresent(dataSource::setUser);
        password.ifPresent(dataSource::setPassword);
        return Flyway.configure(OnDemandFlyway.class.getClassLoader())
                .dataSource(dataSource)
                .locations(LOCATION)
                .schemas(SCHEMA)
                .defaultSchema(SCHEMA)
                .createSchemas(true)
                .load();
    }
}
