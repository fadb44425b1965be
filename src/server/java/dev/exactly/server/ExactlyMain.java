package dev.exactly.server;

import dev.exactly.webhook.replay.ReplayCommand;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.annotations.QuarkusMain;
import java.nio.file.Path;
import java.util.Arrays;
import org.jboss.logging.Logger;

/**
 * Entry point of the server shape. When no datasource URL is configured (neither
 * QUARKUS_DATASOURCE_REACTIVE_URL nor -Dquarkus.datasource.reactive.url) and
 * exactly.embedded.enabled is not false, it starts an embedded PostgreSQL first, keeps its data in
 * exactly.embedded.data-dir (default .exactly/pgdata under the working directory) and points the
 * service at it; then it runs the service until it is stopped.
 *
 * <p>{@code replay ...} as the first argument runs the webhook replay command instead
 * ({@link ReplayCommand}): a client of a running service, without Quarkus or a database.
 */
@QuarkusMain
public final class ExactlyMain {

    private static final Logger LOG = Logger.getLogger(ExactlyMain.class);

    private ExactlyMain() {
    }

    /**
     * @param args passed to Quarkus; or "replay" followed by the replay command's arguments
     * @throws Exception when the embedded database cannot start
     */
    public static void main(String... args) throws Exception {
        if (args.length > 0 && ReplayCommand.NAME.equals(args[0])) {
            System.exit(ReplayCommand.run(Arrays.copyOfRange(args, 1, args.length)));
        }
        if (setting("quarkus.datasource.reactive.url", null) != null
                || !Boolean.parseBoolean(setting("exactly.embedded.enabled", "true"))) {
            Quarkus.run(args);
            return;
        }
        Path dir = Path.of(setting("exactly.embedded.data-dir", ".exactly/pgdata"));
        int port = Integer.parseInt(setting("exactly.embedded.port", "0"));
        try (EmbeddedDatabase db = EmbeddedDatabase.start(dir, port)) {
            LOG.infof("No datasource configured: using the embedded PostgreSQL at %s (data in %s)", db.url(), db.dataDir());
            System.setProperty("quarkus.datasource.reactive.url", db.url());
            System.setProperty("quarkus.datasource.username", "postgres");
            System.setProperty("quarkus.datasource.password", "");
            Quarkus.run(args);
        }
    }

    /** A setting from a system property or its environment-variable form (SmallRye Config naming). */
    private static String setting(String key, String fallback) {
        String v = System.getProperty(key);
        if (v == null || v.isBlank()) {
            v = System.getenv(key.toUpperCase().replaceAll("[^A-Z0-9]", "_"));
        }
        return v == null || v.isBlank() ? fallback : v;
    }
}
