package dev.exactly.webhook;

import dev.exactly.config.ExactlyConfig;
import dev.exactly.engine.PushEngine;
import dev.exactly.engine.PushVerdict;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * Warns about a webhook source that chooses its deliveries' partition ({@code partition.header},
 * {@code partition.pointer}, or a fixed name other than Default) while its queue spreads by key
 * (spreadPartitions): such deliveries are spread by their key, the source's partition is not used.
 * Once at start-up when the process connects to the database at start-up anyway
 * ({@code exactly.schema.migrate-at-start}, the server shape; the Lambda shape opens no connection
 * before its first request), and once per source and process at its first delivery so spread.
 */
@ApplicationScoped
public class SpreadSourceWarnings {

    private static final Logger LOG = Logger.getLogger(SpreadSourceWarnings.class);

    private final Set<String> warned = ConcurrentHashMap.newKeySet();

    /** Start-up: reads the spreadPartitions of the queues of sources that choose a partition. */
    void onStart(@Observes StartupEvent event, ExactlyConfig config, WebhookSources sources, PushEngine engine) {
        if (!config.schema().migrateAtStart()) {
            return;
        }
        List<WebhookSource> choosing = sources.all().stream().filter(s -> s.partition().named()).toList();
        if (choosing.isEmpty()) {
            return;
        }
        engine.spreads(choosing.stream().map(WebhookSource::queue).distinct().toList()).subscribe().with(
                spreads -> choosing.forEach(s -> check(s, spreads)),
                e -> LOG.debugf("webhook sources: spreadPartitions not read at start-up (%s)", e.toString()));
    }

    private void check(WebhookSource s, Map<String, Integer> spreads) {
        int n = spreads.getOrDefault(s.queue(), 0);
        if (n > 0) {
            warn(s, n);
        }
    }

    /**
     * After a delivery reached the store: warns (once per source) when the source chose a
     * partition that the queue's spread replaced.
     *
     * @param s         the source
     * @param partition the partition the source chose for the delivery
     * @param verdict   the delivery's verdict, naming the partition it went to
     */
    void delivered(WebhookSource s, String partition, PushVerdict verdict) {
        if (s.partition().named() && !partition.equals(verdict.partition()) && !warned.contains(s.name())) {
            warn(s, 0);
        }
    }

    private void warn(WebhookSource s, int n) {
        if (warned.add(s.name())) {
            LOG.warnf("webhook source %s chooses the partition (%s), but its queue %s spreads its messages %sby key "
                            + "(spreadPartitions): each delivery goes to its key's partition and the source's partition "
                            + "is not used. Remove exactly.webhooks.sources.%s.partition.*, or stop spreading the queue "
                            + "(PATCH /api/v1/queues/%s {\"options\":{\"spreadPartitions\":0}}, allowed once no partition "
                            + "of it holds a transaction hash)",
                    s.name(), s.partition().describe(), s.queue(), n > 0 ? "over " + n + " partitions " : "", s.name(),
                    s.queue());
        }
    }
}
