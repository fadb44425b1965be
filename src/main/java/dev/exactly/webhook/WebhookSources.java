package dev.exactly.webhook;

import dev.exactly.config.ExactlyConfig;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jboss.logging.Logger;

/**
 * The enabled webhook sources, built from {@link WebhooksConfig} at start-up. A configuration
 * error stops the service with every error listed; a source without a secret is logged and
 * stays disabled (its route answers 404 like an unknown one).
 */
@Startup
@ApplicationScoped
public class WebhookSources {

    private static final Logger LOG = Logger.getLogger(WebhookSources.class);

    private final Map<String, WebhookSource> sources = new TreeMap<>();
    private final Set<String> disabled = new TreeSet<>();

    /**
     * Constructor injection.
     *
     * @throws IllegalStateException listing every configuration error
     */
    public WebhookSources(WebhooksConfig config, ExactlyConfig exactly) {
        SourceFactory factory = new SourceFactory(exactly.push().maxBodyBytes(), Clock.systemUTC());
        List<String> errors = new ArrayList<>();
        config.sources().forEach((name, cfg) -> {
            SourceFactory.Problems problems = new SourceFactory.Problems();
            WebhookSource s = factory.build(name, cfg, problems);
            errors.addAll(problems.errors());
            if (s != null) {
                sources.put(name, s);
            } else if (problems.disabled() && problems.errors().isEmpty()) {
                disabled.add(name);
            }
        });
        if (!errors.isEmpty()) {
            throw new IllegalStateException("invalid webhook configuration:\n  " + String.join("\n  ", errors));
        }
        sources.values().forEach(s -> LOG.infof("webhook source %s: POST /webhooks/%s -> queue %s, partition %s, "
                        + "key %s, signature %s", s.name(), s.name(), s.queue(), s.partition().describe(),
                s.key().describe(), s.signature().scheme()));
        disabled.forEach(n -> LOG.infof("webhook source %s is disabled: exactly.webhooks.sources.%s.secret is not set",
                n, n));
    }

    /** @return every enabled source, by name */
    public Collection<WebhookSource> all() {
        return Collections.unmodifiableCollection(sources.values());
    }

    /**
     * @param name a source name
     * @return true when a source of that name is configured but off because it has no secret
     */
    public boolean isDisabledForWantOfASecret(String name) {
        return disabled.contains(name);
    }

    /** @return the enabled source of that name, or null */
    public WebhookSource find(String name) {
        return sources.get(name);
    }
}
