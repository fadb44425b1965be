package dev.exactly.webhook;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.exactly.destination.Dispatcher;
import dev.exactly.engine.PushCommand;
import dev.exactly.engine.PushEngine;
import dev.exactly.engine.PushStatus;
import dev.exactly.engine.PushVerdict;
import dev.exactly.http.LogContext;
import dev.exactly.problem.ApiProblem;
import dev.exactly.naming.Names;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;

/**
 * Takes one webhook delivery through its source's checks and into the push engine: size limit,
 * signature, deduplication key and partition, then one push of the exact body bytes with the
 * kept headers. Every check runs before anything is written; the first stored delivery of a
 * source in this process settles its queue's deduplication window first ({@link QueueWindows}).
 * On a queue that spreads by key (spreadPartitions) a delivery goes to its key's partition, also
 * when the source chooses a partition (a refused delivery would be lost: not every provider
 * retries); such a source is named in a warning ({@link SpreadSourceWarnings}).
 * Counts deliveries received, stored, duplicate and rejected by reason, and redeliveries whose
 * body differs from the original's ({@link WebhookMetrics}). A redelivery whose body differs is
 * answered as a duplicate flagged {@code payloadMatches: false}, or, when its queue's
 * payloadMismatch option is "reject", refused with 422 (nothing written either way).
 * Each outcome of a delivery to an enabled source (accepted, duplicate, signature failure, other
 * refusal) is also added to the source's figures in the database ({@link WebhookFigures}), by one
 * upsert after the delivery's own transaction and before the answer; a delivery to an unknown or
 * disabled source is counted nowhere.
 */
@ApplicationScoped
public class WebhookIngest {

    /** Media type stored when a delivery names none (so the body is never taken for JSON unasked). */
    static final String UNKNOWN_MEDIA_TYPE = "application/octet-stream";

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final WebhookSources sources;
    private final PushEngine engine;
    private final QueueWindows windows;
    private final WebhookMetrics metrics;
    private final SpreadSourceWarnings spreadWarnings;
    private final Dispatcher destinations;
    private final WebhookFigures figures;

    /** Constructor injection. */
    public WebhookIngest(WebhookSources sources, PushEngine engine, QueueWindows windows, WebhookMetrics metrics,
                         SpreadSourceWarnings spreadWarnings, Dispatcher destinations, WebhookFigures figures) {
        this.figures = figures;
        this.sources = sources;
        this.engine = engine;
        this.windows = windows;
        this.metrics = metrics;
        this.spreadWarnings = spreadWarnings;
        this.destinations = destinations;
    }

    /**
     * @param sourceName the {source} path segment
     * @param delivery   the delivery as received
     * @return the verdict: queued, or duplicate with the original message's id
     * @throws ApiProblem 404 for an unknown or disabled source (thrown), and as the Uni's failure
     *                    413 over the source's body limit, 401 for a missing or wrong signature, 400 when the key or partition is missing
     *                    or invalid, 422 for a redelivery whose body differs when the queue rejects a
     *                    payload mismatch; nothing of the delivery is written in any of these cases
     */
    public Uni<WebhookReceipt> ingest(String sourceName, Delivery delivery) {
        WebhookSource s = sources.find(sourceName);
        if (s == null) {
            throw ApiProblem.notFound(sources.isDisabledForWantOfASecret(sourceName)
                    ? "webhook source '" + sourceName + "' is not enabled: it has no signing secret (exactly.webhooks.sources."
                            + sourceName + ".secret is not set)"
                    : "no webhook source named '" + sourceName + "' is configured");
        }
        metrics.received(s.name());
        PushCommand command;
        try {
            command = command(s, delivery);
        } catch (ApiProblem p) {
            metrics.rejected(s.name(), p);
            return refused(s, p);
        }
        LogContext.pushTo(List.of(command));
        return windows.ensure(s).chain(() -> engine.push(List.of(command)))
                .call(v -> destinations.stored(v.get(0).status() == PushStatus.QUEUED ? List.of(v.get(0).queue()) : List.of()))
                .flatMap(v -> {
            PushVerdict verdict = v.get(0);
            spreadWarnings.delivered(s, command.partition(), verdict);
            if (Boolean.FALSE.equals(verdict.payloadMatches())) {
                metrics.payloadMismatch(s.name());
            }
            WebhookFigures.Outcome outcome;
            switch (verdict.status()) {
                case REJECTED -> {
                    ApiProblem p = ApiProblem.payloadMismatch(null, null, verdict.transactionId(), verdict.queue(),
                            verdict.partition(), verdict.messageId());
                    metrics.rejected(s.name(), p);
                    return refused(s, p);
                }
                case DUPLICATE -> {
                    metrics.duplicate(s.name());
                    outcome = WebhookFigures.Outcome.DUPLICATE;
                }
                default -> {
                    metrics.stored(s.name()); // committed: its destinations were started above
                    outcome = WebhookFigures.Outcome.ACCEPTED;
                }
            }
            WebhookReceipt receipt = WebhookReceipt.of(s.name(), verdict);
            return figures.count(s, outcome).replaceWith(receipt);
        });
    }

    /** Counts a refusal in the source's stored figures, then fails with it. */
    private <T> Uni<T> refused(WebhookSource s, ApiProblem p) {
        WebhookFigures.Outcome outcome = switch (WebhookMetrics.Reason.of(p)) {
            case SIGNATURE, TIMESTAMP -> WebhookFigures.Outcome.SIGNATURE;
            default -> WebhookFigures.Outcome.REJECTED;
        };
        return figures.count(s, outcome).onItem().transformToUni(v -> Uni.createFrom().failure(p));
    }

    /**
     * Answers a provider's ownership challenge (Slack url_verification, Twitch
     * webhook_callback_verification) after checking its size and signature; nothing is written
     * but, for a signature that fails, the source's stored figures.
     *
     * @param sourceName the {source} path segment
     * @param delivery   the delivery as received
     * @return the challenge to send back, or null when the delivery is not a challenge (then
     *         {@link #ingest} takes it)
     * @throws ApiProblem (as the Uni's failure) as {@link #ingest}, for a challenge that fails its checks
     */
    public Uni<String> handshake(String sourceName, Delivery delivery) {
        WebhookSource s = sources.find(sourceName);
        if (s == null || s.handshake() == null || delivery.body().length > s.maxBodyBytes()
                || !s.handshake().is(delivery)) {
            return null;
        }
        metrics.received(s.name());
        try {
            s.signature().verify(delivery);
            return Uni.createFrom().item(s.handshake().challenge(delivery));
        } catch (ApiProblem p) {
            metrics.rejected(s.name(), p);
            return refused(s, p);
        }
    }

    private static PushCommand command(WebhookSource s, Delivery d) {
        if (d.body().length > s.maxBodyBytes()) {
            throw ApiProblem.tooLarge("the body is " + d.body().length + " bytes; source " + s.name()
                    + " accepts at most " + s.maxBodyBytes() + " bytes");
        }
        s.signature().verify(d);
        String key = s.key().key(d);
        String reason = Names.checkKey(key, Names.MAX_TRANSACTION_ID_BYTES);
        if (reason != null) {
            throw ApiProblem.invalid(null, s.key().describe(), "is this source's deduplication key, so it " + reason);
        }
        String partition = s.partition().partition(d);
        String contentType = d.header("Content-Type");
        // never "named": a queue that spreads by key spreads the delivery whatever partition the
        // source chose (a refusal would lose it: providers such as GitHub do not retry)
        return new PushCommand(s.queue(), partition, key, d.body(),
                contentType == null || contentType.isBlank() ? UNKNOWN_MEDIA_TYPE : contentType.trim(),
                keptHeaders(s, d), null, false);
    }

    /** The kept headers as a JSON object, lower-case names, each as {@link Delivery#header} reads it. */
    private static String keptHeaders(WebhookSource s, Delivery d) {
        ObjectNode o = MAPPER.createObjectNode();
        for (String name : s.keptHeaders()) {
            String value = d.header(name);
            if (value != null) {
                o.put(name, value);
            }
        }
        return o.isEmpty() ? null : o.toString();
    }
}
