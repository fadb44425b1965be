package dev.exactly.webhook;

import dev.exactly.http.RouteBodyLimit;
import jakarta.enterprise.context.ApplicationScoped;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

/**
 * Each webhook source's body limit for its route, POST /webhooks/{source}: the source's
 * {@code max-body-bytes} (at most, and by default, {@code exactly.push.max-body-bytes}). A refusal
 * is counted as the source's delivery received and rejected as too-large ({@link WebhookMetrics}),
 * as a body the source refuses after reading it would be, and added to the source's stored figures
 * as rejected ({@link WebhookFigures}; that write is not awaited: the refusal is answered at once).
 * An unknown or disabled source keeps the
 * push limit (its route answers 404).
 */
@ApplicationScoped
public class WebhookBodyLimit implements RouteBodyLimit {

    private static final String PREFIX = WebhookResource.PATH + "/";

    private final Map<String, Limit> bySource = new TreeMap<>();
    private final Limit largest;

    /** Constructor injection. */
    public WebhookBodyLimit(WebhookSources sources, WebhookMetrics metrics, WebhookFigures figures) {
        Limit max = Limit.of(0, "exactly.webhooks.sources.*.max-body-bytes");
        for (WebhookSource s : sources.all()) {
            bySource.put(s.name(), new Limit(s.maxBodyBytes(), "exactly.webhooks.sources." + s.name() + ".max-body-bytes",
                    problem -> {
                        metrics.received(s.name());
                        metrics.rejected(s.name(), problem);
                        figures.count(s, WebhookFigures.Outcome.REJECTED).subscribe().with(v -> { });
                    }));
            if (s.maxBodyBytes() > max.maxBytes()) {
                max = bySource.get(s.name());
            }
        }
        this.largest = max;
    }

    @Override
    public Limit limitFor(String path) {
        if (!path.startsWith(PREFIX) || path.indexOf('/', PREFIX.length()) >= 0) {
            return null;
        }
        String source = path.substring(PREFIX.length());
        return bySource.get(source.indexOf('%') >= 0 ? URLDecoder.decode(source, StandardCharsets.UTF_8) : source);
    }

    @Override
    public Limit largest() {
        return largest;
    }

    /** @return the webhook route's template, POST /webhooks/{source} */
    @Override
    public String uriTemplate() {
        return PREFIX + "{source}";
    }
}
