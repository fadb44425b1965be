package dev.exactly.lambda.schema;

import dev.exactly.schema.FlywaySource;
import io.quarkus.datasource.common.runtime.DataSourceUtil;
import io.quarkus.flyway.runtime.FlywayContainerProducer;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.flywaydb.core.Flyway;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The Lambda shape's {@link FlywaySource}: a Flyway made on the migrate call, never at start-up.
 * The Lambda profile leaves {@code quarkus.datasource.jdbc.url} unset, which makes the Agroal
 * datasource and quarkus-flyway's beans inactive, so a cold start builds neither (nor the
 * transaction manager behind them). On the call this builds a non-pooling JDBC datasource (the
 * PostgreSQL driver's own) on the reactive URL with {@code jdbc:} in front (the same server, the
 * same sslmode and credentials), and the Flyway through quarkus-flyway's producer, so the
 * {@code quarkus.flyway.*} settings and the migrations found at build time are those of the server
 * shape. Flyway opens its connections for the command and closes them after it: nothing stays open.
 */
@ApplicationScoped
public class OnDemandFlyway implements FlywaySource {

    private final FlywayContainerProducer producer;
    private final String reactiveUrl;
    private final Optional<String> username;
    private final Optional<String> password;

    /**
     * Constructor injection (the bean is made on the first migrate call).
     *
     * @param producer    quarkus-flyway's Flyway producer
     * @param reactiveUrl {@code quarkus.datasource.reactive.url}, postgresql://host:port/db[?params]
     * @param username    {@code quarkus.datasource.username}
     * @param password    {@code quarkus.datasource.password}
     */
    public OnDemandFlyway(FlywayContainerProducer producer,
            @ConfigProperty(name = "quarkus.datasource.reactive.url") String reactiveUrl,
            @ConfigProperty(name = "quarkus.datasource.username") Optional<String> username,
            @ConfigProperty(name = "quarkus.datasource.password") Optional<String> password) {
        this.producer = producer;
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
        return producer.createFlyway(dataSource, DataSourceUtil.DEFAULT_DATASOURCE_NAME, true, false).getFlyway();
    }
}
