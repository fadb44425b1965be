package dev.exactly.webhook;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.exactly.queue.QueueOption;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.time.OffsetDateTime;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * GET /api/v1/webhooks/sources: one enabled webhook source, its settings and its stored figures.
 *
 * @param name                   the source name (POST /webhooks/{name})
 * @param preset                 its preset (github, stripe, ..., generic)
 * @param signature              its signature scheme
 * @param queue                  the queue its deliveries go to
 * @param window                 the deduplication window in force on that queue, and where it comes from
 * @param lastHour               deliveries in the current minute and the 59 before it
 * @param last24Hours            deliveries in the current minute and the 1439 before it
 * @param lastDeliveryAt         the last delivery accepted or answered duplicate (absent: none in the kept history)
 * @param lastSignatureFailureAt the last delivery refused for its signature (absent: none in the kept history)
 */
@RegisterForReflection
@JsonInclude(JsonInclude.Include.NON_NULL)
public record WebhookSourceFigures(String name, String preset, String signature, String queue, Window window,
                                   WebhookFigures.Counts lastHour, WebhookFigures.Counts last24Hours,
                                   OffsetDateTime lastDeliveryAt, OffsetDateTime lastSignatureFailureAt) {

    /**
     * The deduplication window in force.
     *
     * @param seconds               the window, in seconds: the queue's stored option, or, while the queue
     *                              does not exist, the one its first delivery will create it with
     * @param from                  where it comes from: {@code source} (the source's window-seconds),
     *                              {@code preset} (the preset's window), {@code queue} (set on the queue
     *                              through the queue API) or {@code default} (the queue default, 3600)
     * @param configuredSeconds     the window the source's configuration asks for (window-seconds or the
     *                              preset's); absent when it asks for none (generic preset)
     * @param appliesAtNextDelivery true when {@code configuredSeconds} differs from {@code seconds} and
     *                              will replace it at the source's next delivery (the stored window is
     *                              the queue default or the preset's, which a source may replace)
     * @param queueExists           false while no delivery has created the queue
     */
    @RegisterForReflection
    @Schema(name = "WebhookWindow")
    public record Window(int seconds, @Schema(enumeration = {"source", "preset", "queue", "default"}) String from,
                         Integer configuredSeconds, boolean appliesAtNextDelivery, boolean queueExists) {

        /**
         * @param wanted the source's window (null: it sets none)
         * @param stored the queue's stored window (null: no such queue yet)
         */
        static Window of(DedupWindow wanted, Integer stored) {
            int def = QueueOption.DEDUP_WINDOW_SECONDS.defaultValue();
            String configuredBy = wanted == null ? null : wanted.explicit() ? "source" : "preset";
            Integer configured = wanted == null ? null : wanted.seconds();
            if (stored == null) {
                return new Window(wanted == null ? def : wanted.seconds(), wanted == null ? "default" : configuredBy,
                        configured, false, false);
            }
            if (wanted != null && stored == wanted.seconds()) {
                return new Window(stored, configuredBy, configured, false, true);
            }
            return new Window(stored, stored == def ? "default" : "queue", configured,
                    wanted != null && wanted.replaces(stored), true);
        }
    }

    /**
     * The answer of GET /api/v1/webhooks/sources.
     *
     * @param keptHours how far back the figures are kept, in hours
     * @param sources   every enabled source, by name
     */
    @RegisterForReflection
    public record Page(int keptHours, List<WebhookSourceFigures> sources) {
    }

    /**
     * The answer of GET /api/v1/webhooks/sources/{source}/hours.
     *
     * @param source the source name
     * @param since  the start of the first hour asked for (UTC)
     * @param hours  each hour from {@code since} with at least one delivery, in order
     */
    @RegisterForReflection
    public record Hours(String source, OffsetDateTime since, List<Hour> hours) {
    }

    /**
     * One hour of a source's deliveries.
     *
     * @param hour   its start (UTC)
     * @param accepted          stored as new messages
     * @param duplicates        answered duplicate
     * @param signatureFailures refused with 401 for the signature or signed timestamp
     * @param rejected          refused otherwise (400, 413, 422)
     */
    @RegisterForReflection
    @Schema(name = "WebhookHour")
    public record Hour(OffsetDateTime hour, long accepted, long duplicates, long signatureFailures, long rejected) {
    }
}
