package dev.exactly.config;

import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/** Logs, once at start-up, which database and which engine features this instance uses. */
@ApplicationScoped
public class StartupReport {

    private static final Logger LOG = Logger.getLogger(StartupReport.class);

    void onStart(@Observes StartupEvent e, ExactlyConfig config,
                 @ConfigProperty(name = "quarkus.datasource.reactive.url", defaultValue = "(none)") String url) {
        LOG.infof("Exactly: database %s, migrate-at-start %s, dedup cache %s, max %d items and %d bytes per push",
                redact(url), config.schema().migrateAtStart(), config.dedupCache().enabled() ? "on" : "off",
                config.push().maxItems(), config.push().maxBodyBytes());
    }

    /** The URL without any user:password@ part. */
    static String redact(String url) {
        return url.replaceAll("//[^/@]*@", "//");
    }
}
