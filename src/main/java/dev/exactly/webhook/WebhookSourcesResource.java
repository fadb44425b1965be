package dev.exactly.webhook;

import dev.exactly.naming.Name;
import dev.exactly.problem.ApiProblem;
import io.quarkus.security.Authenticated;
import io.smallrye.mutiny.Uni;
import jakarta.validation.constraints.Pattern;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.openapi.annotations.Operation;

/**
 * The webhook sources' figures, read from the database ({@link WebhookFigures}), so that every
 * instance and both shapes answer alike: GET /api/v1/webhooks/sources (every enabled source with its
 * settings, window in force and counts over the last hour and 24 hours) and
 * GET /api/v1/webhooks/sources/{source}/hours (one source's counts per hour). Read only; API key.
 */
@Authenticated
@Path("/api/v1/webhooks/sources")
@Produces(MediaType.APPLICATION_JSON)
public class WebhookSourcesResource {

    /** Default hours of a source's hourly series. */
    static final int DEFAULT_HOURS = 24;

    private final WebhookSources sources;
    private final WebhooksConfig config;
    private final WebhookFigures figures;

    /** Constructor injection. */
    public WebhookSourcesResource(WebhookSources sources, WebhooksConfig config, WebhookFigures figures) {
        this.sources = sources;
        this.config = config;
        this.figures = figures;
    }

    /** Every enabled source, by name, with its stored figures. */
    @GET
    @Operation(operationId = "webhookSources", summary = "Every enabled webhook source with its figures",
            description = "Per source: its preset, signature scheme and queue; the deduplication window in force on the "
                    + "queue and where it comes from (source, preset, queue or default); the deliveries accepted, "
                    + "answered duplicate, refused for their signature (401) and refused otherwise (400, 413, 422) over "
                    + "the last hour and the last 24 hours (by minute, the current one included); the last delivery and "
                    + "the last signature failure. Kept in the database for 7 days (keptHours), so every instance and "
                    + "the Lambda shape answer alike. A source without a secret is disabled and not listed.")
    public Uni<WebhookSourceFigures.Page> list() {
        List<WebhookSource> all = List.copyOf(sources.all());
        Map<String, WebhookSource> byName = new HashMap<>();
        all.forEach(s -> byName.put(s.name(), s));
        return figures.figures(all).map(rows -> new WebhookSourceFigures.Page(WebhookFigures.KEPT_HOURS,
                rows.stream().map(r -> {
                    WebhookSource s = byName.get(r.source());
                    WebhooksConfig.Source c = config.sources().get(s.name());
                    return new WebhookSourceFigures(s.name(), c == null ? null : c.preset(), s.signature().scheme(),
                            s.queue(), WebhookSourceFigures.Window.of(s.window(), r.storedWindow()), r.lastHour(),
                            r.last24Hours(), r.lastDeliveryAt(), r.lastSignatureFailureAt());
                }).toList()));
    }

    /** One source's deliveries per hour; 404 when no enabled source has that name. */
    @GET
    @Path("/{source}/hours")
    @Operation(operationId = "webhookSourceHours", summary = "One webhook source's deliveries per hour, over the last hours (up to 7 days)",
            description = "?hours= (1 to 168, default 24): the hours before the current one to include, with the current "
                    + "one. Each hour with at least one delivery: accepted, duplicates, signatureFailures, rejected.")
    public Uni<WebhookSourceFigures.Hours> hours(@PathParam("source") @Name String source,
                                                @QueryParam("hours") @Pattern(regexp = "0*([1-9][0-9]?|1[0-5][0-9]|16[0-8])",
                                                        message = "must be a whole number from 1 to "
                                                                + WebhookFigures.KEPT_HOURS) String hours) {
        WebhookSource s = sources.find(source);
        if (s == null) {
            throw ApiProblem.notFound("no enabled webhook source named '" + source + "'");
        }
        int n = hours == null ? DEFAULT_HOURS : Integer.parseInt(hours);
        OffsetDateTime since = OffsetDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.HOURS).minusHours(n);
        return figures.series(s, since).map(rows -> new WebhookSourceFigures.Hours(s.name(), since, rows.stream()
                .map(r -> new WebhookSourceFigures.Hour(r.hour(), r.counts().accepted(), r.counts().duplicates(),
                        r.counts().signatureFailures(), r.counts().rejected())).toList()));
    }
}
