package dev.exactly.server;

import dev.exactly.config.ExactlyConfig;
import dev.exactly.webhook.replay.CorpusCommand;
import dev.exactly.webhook.replay.ReplayCommand;
import io.quarkus.runtime.Application;
import io.quarkus.runtime.ApplicationLifecycleManager;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.annotations.QuarkusMain;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jboss.logging.Logger;

/**
 * Entry point of the server shape. When no datasource URL is configured (neither
 * QUARKUS_DATASOURCE_REACTIVE_URL nor -Dquarkus.datasource.reactive.url) and
 * exactly.embedded.enabled is not false, it starts an embedded PostgreSQL first, keeps its data in
 * exactly.embedded.data-dir (default .exactly/pgdata under the working directory) and points the
 * service at it; then it runs the service until it is stopped. A second instance on the same data
 * directory exits with status 1 and a message naming the running one, which it leaves untouched
 * ({@link DataDirectoryOwner}). While the service runs, the embedded PostgreSQL is watched and
 * restarted if it dies, at most exactly.embedded.restart-attempts (default 5) times per outage, after which
 * the service stops with status 1 ({@link PostmasterWatch}).
 *
 * <p>{@code replay ...} as the first argument runs the webhook replay command instead
 * ({@link ReplayCommand}): a client of a running service, without Quarkus or a database;
 * {@code corpus ...} writes a signed corpus of GitHub-shaped deliveries for it
 * ({@link CorpusCommand}).
 *
 * <p>With the embedded database and no API key configured (exactly.auth.api-key-sha256), it also
 * uses a local key kept in {@code api-key} next to the data directory (.exactly/api-key by
 * default), generated on first start (and then printed once). With a configured datasource nothing is
 * generated: without a configured key every request that needs one (all of /api) is refused.
 *
 * <p>With the embedded database the HTTP server listens on loopback (127.0.0.1) unless
 * quarkus.http.host is set anywhere ({@link LoopbackByDefault}); with a configured datasource it
 * keeps Quarkus' default (0.0.0.0).
 */
@QuarkusMain
public final class ExactlyMain {

    private static final Logger LOG = Logger.getLogger(ExactlyMain.class);

    private ExactlyMain() {
    }

    /**
     * @param args passed to Quarkus; or "replay" or "corpus" followed by that command's arguments
     * @throws Exception when the embedded database cannot start
     */
    public static void main(String... args) throws Exception {
        if (args.length > 0 && ReplayCommand.NAME.equals(args[0])) {
            System.exit(ReplayCommand.run(Arrays.copyOfRange(args, 1, args.length)));
        }
        if (args.length > 0 && CorpusCommand.NAME.equals(args[0])) {
            System.exit(CorpusCommand.run(Arrays.copyOfRange(args, 1, args.length)));
        }
        ExactlyConfig.Embedded embedded = embeddedSettings();
        if (setting("quarkus.datasource.reactive.url", null) != null || !embedded.enabled()) {
            Quarkus.run(args);
            return;
        }
        Path dir = Path.of(embedded.dataDir());
        EmbeddedDatabase db;
        try {
            db = EmbeddedDatabase.start(dir, embedded.port());
        } catch (DataDirectoryOwner.DataDirectoryInUseException | EmbeddedDatabase.PortInUseException refused) {
            // logging is not set up before Quarkus starts: say it on the console directly
            System.err.println("ERROR: " + refused.getMessage());
            System.exit(1);
            return;
        }
        PostmasterWatch watch = new PostmasterWatch(db, embedded.restartAttempts(), Duration.ofSeconds(1),
                Duration.ofSeconds(1), () -> Quarkus.asyncExit(1)).start();
        Runnable close = closeOnce(watch, db);
        // Quarkus ends the JVM itself (System.exit) once it stopped, also after a SIGTERM, so the
        // database is closed by a shutdown hook of its own, which waits for Quarkus' stop first
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            awaitQuarkusStopped(QUARKUS_STOP_WAIT_MS);
            close.run();
        }, "embedded-postgres-stop"));
        try {
            LOG.infof("No datasource configured: using the embedded PostgreSQL at %s (data in %s)", db.url(), db.dataDir());
            System.setProperty("quarkus.datasource.reactive.url", db.url());
            System.setProperty("quarkus.datasource.username", "postgres");
            System.setProperty("quarkus.datasource.password", "");
            LoopbackByDefault.activate();
            useLocalApiKeyUnlessConfigured(dir);
            Quarkus.run(args);
        } finally {
            close.run();
        }
    }

    /**
     * How long the embedded database's stop waits for Quarkus' stop, in ms: longer than
     * quarkus.shutdown.timeout (25 s) plus the dispatcher's final writes (10 s).
     */
    static final long QUARKUS_STOP_WAIT_MS = 45_000;

    /** Closes the watch, then the database, once, whichever of the shutdown hook and the main thread comes first. */
    private static Runnable closeOnce(PostmasterWatch watch, EmbeddedDatabase db) {
        AtomicBoolean closed = new AtomicBoolean();
        return () -> {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            try {
                watch.close();
            } finally {
                try {
                    db.close();
                } catch (IOException e) {
                    System.err.println("ERROR: stopping the embedded PostgreSQL: " + e);
                }
            }
        };
    }

    /**
     * Waits up to {@code maxMs} for the running Quarkus application to have stopped (its requests
     * answered, its delivery's last writes done, its connection pool closed); returns at once when
     * none runs.
     */
    static void awaitQuarkusStopped(long maxMs) {
        Application app = ApplicationLifecycleManager.getCurrentApplication();
        if (app == null) {
            return;
        }
        Thread waiter = new Thread(app::awaitShutdown, "embedded-postgres-stop-wait");
        waiter.setDaemon(true);
        waiter.start();
        try {
            waiter.join(maxMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * When no key is configured, accepts the local key (created on first start) and prints it.
     *
     * @param dataDir the embedded data directory; the key file sits next to it
     * @throws java.io.IOException when the key file cannot be read or written
     */
    private static void useLocalApiKeyUnlessConfigured(Path dataDir) throws java.io.IOException {
        if (setting("exactly.auth.api-key-sha256", null) != null) {
            return;
        }
        Path parent = dataDir.toAbsolutePath().normalize().getParent();
        Path file = (parent == null ? Path.of(".") : parent).resolve("api-key");
        boolean existed = java.nio.file.Files.exists(file);
        String key = LocalApiKey.loadOrCreate(file);
        System.setProperty("exactly.auth.api-key-sha256", LocalApiKey.sha256Hex(key));
        if (!existed) {
            LOG.infof("Generated the local API key %s (kept in %s)", key, file);
        }
        LOG.infof("No API key configured: using the local one in %s. Send it as 'Authorization: Bearer <key>', "
                + "e.g. KEY=$(cat %s)", file, Path.of("").toAbsolutePath().relativize(file));
    }

    /**
     * The exactly.embedded.* settings, read before Quarkus starts: system properties and the
     * environment over the mapping's own defaults ({@link ExactlyConfig.Embedded}), as SmallRye
     * Config reads them. Other keys are not looked at.
     */
    static ExactlyConfig.Embedded embeddedSettings() {
        SmallRyeConfig config = new SmallRyeConfigBuilder().addSystemSources().addDiscoveredConverters()
                .withMapping(ExactlyConfig.class).withValidateUnknown(false).build();
        return config.getConfigMapping(ExactlyConfig.class).embedded();
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
