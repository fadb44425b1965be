package dev.exactly.server;

import java.util.Map;
import java.util.Set;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * The listen address of a server on the embedded PostgreSQL: {@code quarkus.http.host=127.0.0.1}
 * (loopback only), as a configuration source of ordinal {@value #ORDINAL}. That is above Quarkus'
 * own default (0.0.0.0 in production, a default value of the lowest ordinal) and below every
 * place a user sets a value (system properties 400, environment 300, {@code .env} 295,
 * {@code config/application.properties} 260, application.properties 250,
 * microprofile-config.properties 100), so an explicit {@code quarkus.http.host} always wins.
 *
 * <p>It gives the value only once {@link ExactlyMain} has {@link #activate() activated} it, which
 * it does when it starts the embedded database: that is a developer's machine, with a superuser
 * database and a generated key, which the network has no business reaching. A server pointed at a
 * database of its own (QUARKUS_DATASOURCE_REACTIVE_URL) keeps Quarkus' default.
 * Registered in META-INF/services of the server build.
 */
public final class LoopbackByDefault implements ConfigSource {

    /** Above Quarkus' defaults, below every source a user writes to. */
    static final int ORDINAL = 50;

    /** The key this source gives. */
    static final String HOST = "quarkus.http.host";

    /** The loopback address the embedded default listens on (the embedded PostgreSQL's too). */
    static final String LOOPBACK = "127.0.0.1";

    private static volatile boolean active;

    /** Makes the source give {@value #LOOPBACK} from now on (in this JVM). */
    static void activate() {
        active = true;
    }

    @Override
    public Set<String> getPropertyNames() {
        return active ? Set.of(HOST) : Set.of();
    }

    @Override
    public Map<String, String> getProperties() {
        return active ? Map.of(HOST, LOOPBACK) : Map.of();
    }

    @Override
    public String getValue(String propertyName) {
        return active && HOST.equals(propertyName) ? LOOPBACK : null;
    }

    @Override
    public String getName() {
        return "exactly-embedded-loopback";
    }

    @Override
    public int getOrdinal() {
        return ORDINAL;
    }
}
