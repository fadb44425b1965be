package dev.exactly.webhook;

import dev.exactly.problem.ApiProblem;
import dev.exactly.webhook.key.MissingKey;
import dev.exactly.webhook.signature.InvalidSignature;
import dev.exactly.webhook.signature.StaleTimestamp;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Micrometer counters of webhook deliveries, per configured source (Prometheus names):
 * {@code exactly_webhook_deliveries_received_total}, {@code exactly_webhook_deliveries_stored_total},
 * {@code exactly_webhook_deliveries_duplicate_total},
 * {@code exactly_webhook_deliveries_payload_mismatch_total} (redeliveries whose body differs from
 * the original's, answered duplicate or, when the queue rejects mismatches, refused; tag
 * {@code source}) and
 * {@code exactly_webhook_deliveries_rejected_total} (tags {@code source} and {@code reason}: one of
 * {@link Reason}). Cardinality is bounded: the source tag takes the names of enabled sources only
 * (configured with a secret; a delivery to an unknown or disabled source is counted nowhere) and
 * the reason a fixed set. Every counter is registered at start-up, so each starts at 0.
 */
@Startup
@ApplicationScoped
public class WebhookMetrics {

    /** Why a delivery was refused. */
    public enum Reason {
        /** 401: the signature (or GitLab's token) is missing, malformed or does not match. */
        SIGNATURE,
        /** 401: the signed timestamp is missing, malformed or outside the scheme's tolerance. */
        TIMESTAMP,
        /** 400: the delivery does not carry its source's deduplication key. */
        KEY_MISSING,
        /** 413: the body is over the source's limit. */
        TOO_LARGE,
        /** 400: anything else (an invalid key or partition, a body that is not the JSON the key needs). */
        INVALID,
        /** 422: a redelivery whose body differs from the original's, in a queue that rejects a payload mismatch. */
        PAYLOAD_MISMATCH;

        /** The tag value: lower case, dash-separated. */
        public String tag() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        /** @return the reason of a refusal */
        static Reason of(ApiProblem p) {
            if (p instanceof StaleTimestamp) {
                return TIMESTAMP;
            }
            if (p instanceof InvalidSignature) {
                return SIGNATURE;
            }
            if (p instanceof MissingKey) {
                return KEY_MISSING;
            }
            return p.status() == 413 ? TOO_LARGE : p.status() == 422 ? PAYLOAD_MISMATCH : INVALID;
        }
    }

    private record Meters(Counter received, Counter stored, Counter duplicate, Counter payloadMismatch,
                          Map<Reason, Counter> rejected) {
    }

    private final Map<String, Meters> bySource = new TreeMap<>();

    /**
     * Constructor injection: registers the counters of every enabled source.
     *
     * @param registry the registry
     * @param sources  the enabled webhook sources
     */
    public WebhookMetrics(MeterRegistry registry, WebhookSources sources) {
        for (WebhookSource source : sources.all()) {
            String s = source.name();
            Map<Reason, Counter> rejected = new EnumMap<>(Reason.class);
            for (Reason r : Reason.values()) {
                rejected.put(r, Counter.builder("exactly.webhook.deliveries.rejected").tag("source", s)
                        .tag("reason", r.tag()).description("webhook deliveries refused, by reason").register(registry));
            }
            bySource.put(s, new Meters(
                    Counter.builder("exactly.webhook.deliveries.received").tag("source", s)
                            .description("webhook deliveries received by an enabled source").register(registry),
                    Counter.builder("exactly.webhook.deliveries.stored").tag("source", s)
                            .description("webhook deliveries stored as new messages").register(registry),
                    Counter.builder("exactly.webhook.deliveries.duplicate").tag("source", s)
                            .description("webhook redeliveries answered as duplicates, nothing written").register(registry),
                    Counter.builder("exactly.webhook.deliveries.payload.mismatch").tag("source", s)
                            .description("webhook redeliveries whose body differs from the original delivery's")
                            .register(registry),
                    rejected));
        }
    }

    /** One delivery reached an enabled source. */
    public void received(String source) {
        meters(source).received.increment();
    }

    /** One delivery was stored (verdict queued). */
    public void stored(String source) {
        meters(source).stored.increment();
    }

    /** One delivery was a duplicate. */
    public void duplicate(String source) {
        meters(source).duplicate.increment();
    }

    /** One redelivery's body differed from the original delivery's (it was a duplicate, or rejected). */
    public void payloadMismatch(String source) {
        meters(source).payloadMismatch.increment();
    }

    /** One delivery was refused, for the reason {@code problem} tells. */
    public void rejected(String source, ApiProblem problem) {
        meters(source).rejected.get(Reason.of(problem)).increment();
    }

    private Meters meters(String source) {
        Meters m = bySource.get(source);
        if (m == null) {
            throw new IllegalArgumentException("not an enabled webhook source: " + source);
        }
        return m;
    }
}
