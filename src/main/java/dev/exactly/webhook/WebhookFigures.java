package dev.exactly.webhook;

import dev.exactly.db.BorrowedConnections;
import dev.exactly.db.DatabaseErrors;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import org.jboss.logging.Logger;

/**
 * Per-source webhook figures kept in the database, per minute (the unlogged table
 * {@code exactly.webhook_minutes}, sql/V23__webhook_figures.sql, and its functions in
 * sql/R__webhook_figures.sql): one upsert per delivery outcome ({@link #count}), the sums per
 * source over the last hour and 24 hours ({@link #figures}), one source's hourly series
 * ({@link #series}) and the maintenance purge of minutes past the kept history ({@link #purge}).
 * Only the names of enabled sources are ever written: {@link #count} takes a {@link WebhookSource},
 * which only {@link WebhookSources} builds from the configuration.
 */
@ApplicationScoped
public class WebhookFigures {

    private static final Logger LOG = Logger.getLogger(WebhookFigures.class);

    /** How long minute rows are kept (the purge's cut, sql/R__webhook_figures.sql), in hours. */
    public static final int KEPT_HOURS = 7 * 24;

    private static final Duration WARN_EVERY = Duration.ofMinutes(1);

    private static final String COUNT = "SELECT exactly.count_webhook($1, $2)";
    private static final String FIGURES = "SELECT * FROM exactly.webhook_figures($1, $2)";
    private static final String SERIES = "SELECT * FROM exactly.webhook_series($1, $2)";
    private static final String PURGE = "SELECT exactly.purge_webhook_minutes($1)";

    /** What became of one delivery. */
    public enum Outcome {
        /** Stored as a new message (verdict queued). */
        ACCEPTED,
        /** Answered duplicate (nothing written). */
        DUPLICATE,
        /** Refused with 401: the signature or signed timestamp is missing, malformed, wrong or stale. */
        SIGNATURE,
        /** Refused otherwise: 400 (key or partition), 413 (too large), 422 (payload mismatch). */
        REJECTED;

        /** The outcome's name as exactly.count_webhook takes it. */
        String wire() {
            return this == DUPLICATE ? "duplicate" : name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * Deliveries of one source over a period, by outcome.
     *
     * @param accepted          stored as new messages
     * @param duplicates        answered duplicate
     * @param signatureFailures refused with 401 (signature or signed timestamp)
     * @param rejected          refused otherwise (400, 413, 422)
     */
    @io.quarkus.runtime.annotations.RegisterForReflection
    @org.eclipse.microprofile.openapi.annotations.media.Schema(name = "WebhookCounts")
    public record Counts(long accepted, long duplicates, long signatureFailures, long rejected) {
    }

    /**
     * One source's figures as stored.
     *
     * @param source             the source name
     * @param storedWindow       its queue's deduplication window in seconds, or null when the queue does not exist yet
     * @param lastHour           the current minute and the 59 before it
     * @param last24Hours        the current minute and the 1439 before it
     * @param lastDeliveryAt     the last accepted or duplicate delivery (over the kept history), or null
     * @param lastSignatureFailureAt the last signature failure (over the kept history), or null
     */
    public record SourceCounts(String source, Integer storedWindow, Counts lastHour, Counts last24Hours,
                               OffsetDateTime lastDeliveryAt, OffsetDateTime lastSignatureFailureAt) {
    }

    /**
     * One hour of one source's figures.
     *
     * @param hour   the start of the hour (UTC)
     * @param counts the deliveries in it
     */
    public record HourCounts(OffsetDateTime hour, Counts counts) {
    }

    private final Pool pool;
    private final Counter lost;
    private final AtomicLong lastWarning = new AtomicLong(System.nanoTime() - WARN_EVERY.toNanos());

    /** Constructor injection; registers {@code exactly_webhook_figures_lost_total}. */
    public WebhookFigures(Pool pool, MeterRegistry registry) {
        this.pool = pool;
        this.lost = Counter.builder("exactly.webhook.figures.lost")
                .description("webhook delivery outcomes not added to the stored per-source figures (database write failed)")
                .register(registry);
    }

    /**
     * Adds one delivery outcome to the source's current minute, in one upsert of its own
     * transaction. Never fails: when the write fails the outcome is counted in
     * {@code exactly_webhook_figures_lost_total} and a warning is logged (at most once a minute),
     * and the delivery's answer is unchanged.
     *
     * @param source  an enabled source
     * @param outcome what became of the delivery
     * @return completes once written (or once the failure is logged)
     */
    public Uni<Void> count(WebhookSource source, Outcome outcome) {
        return BorrowedConnections.execute(pool, COUNT, Tuple.of(source.name(), outcome.wire()))
                .replaceWithVoid()
                .onFailure().recoverWithItem(e -> {
                    lost.increment();
                    long now = System.nanoTime();
                    long last = lastWarning.get();
                    if (now - last >= WARN_EVERY.toNanos() && lastWarning.compareAndSet(last, now)) {
                        LOG.warnf("webhook figures: a %s delivery of source %s was not counted (further failures "
                                + "within a minute are counted in exactly_webhook_figures_lost_total only): %s",
                                outcome.wire(), source.name(), e.toString());
                    }
                    return null;
                });
    }

    /**
     * The figures of the given sources, in name order.
     *
     * @param sources enabled sources
     * @throws dev.exactly.db.StoreUnavailableException (as the Uni's failure) when the database is away
     */
    public Uni<List<SourceCounts>> figures(Collection<WebhookSource> sources) {
        String[] names = sources.stream().map(WebhookSource::name).toArray(String[]::new);
        String[] queues = sources.stream().map(WebhookSource::queue).toArray(String[]::new);
        Tuple args = Tuple.tuple().addArrayOfString(names).addArrayOfString(queues);
        return BorrowedConnections.execute(pool, FIGURES, args)
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> {
                    List<SourceCounts> out = new ArrayList<>(rows.size());
                    for (Row r : rows) {
                        out.add(new SourceCounts(r.getString("r_source"), r.getInteger("r_window"),
                                new Counts(r.getLong("r_hour_accepted"), r.getLong("r_hour_duplicates"),
                                        r.getLong("r_hour_signature"), r.getLong("r_hour_rejected")),
                                new Counts(r.getLong("r_day_accepted"), r.getLong("r_day_duplicates"),
                                        r.getLong("r_day_signature"), r.getLong("r_day_rejected")),
                                r.getOffsetDateTime("r_last_delivery"), r.getOffsetDateTime("r_last_failure")));
                    }
                    return out;
                });
    }

    /**
     * One source's figures per hour (UTC) from the hour of {@code since} on; hours with none are absent.
     *
     * @throws dev.exactly.db.StoreUnavailableException (as the Uni's failure) when the database is away
     */
    public Uni<List<HourCounts>> series(WebhookSource source, OffsetDateTime since) {
        return BorrowedConnections.execute(pool, SERIES, Tuple.of(source.name(), since))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> {
                    List<HourCounts> out = new ArrayList<>(rows.size());
                    for (Row r : rows) {
                        out.add(new HourCounts(r.getOffsetDateTime("r_hour"), new Counts(r.getLong("r_accepted"),
                                r.getLong("r_duplicates"), r.getLong("r_signature"), r.getLong("r_rejected"))));
                    }
                    return out;
                });
    }

    /**
     * Deletes at most {@code limit} minute rows older than {@link #KEPT_HOURS}, oldest first, keeping
     * each source's newest rows (its last delivery and failure times).
     *
     * @return how many were deleted
     * @throws dev.exactly.db.StoreUnavailableException (as the Uni's failure) when the database is away
     */
    public Uni<Integer> purge(int limit) {
        return BorrowedConnections.execute(pool, PURGE, Tuple.of(limit))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> rows.iterator().next().getInteger(0));
    }
}
