package dev.exactly.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.Api;
import dev.exactly.testing.LogCapture;
import dev.exactly.testing.RawHttp;
import dev.exactly.webhook.WebhookSource;
import dev.exactly.webhook.WebhookSources;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;

/**
 * What a caller without a key can make the public endpoints do (server shape): every enabled
 * webhook source refuses an unsigned or wrongly signed delivery, its ownership handshake
 * included, before anything is written; an unknown source name, an unrouted path or a refused
 * request makes no metric series, no queue, no row and no log line, however many arrive. A health
 * group is not public: SmallRye Health makes a registry for every group name it is asked for, up
 * to 100, and answers 500 to every group request after that.
 */
@QuarkusTest
class PublicEndpointsTest {

    @Inject
    WebhookSources sources;

    /** Every header a supported provider signs or keys its deliveries with, each holding a wrong value. */
    static Map<String, String> forgedHeaders(boolean signed) {
        long now = Instant.now().getEpochSecond();
        String id = UUID.randomUUID().toString();
        Map<String, String> h = new LinkedHashMap<>();
        h.put("Content-Type", "application/json");
        h.put("X-GitHub-Event", "push");
        h.put("X-GitHub-Delivery", id);
        h.put("Idempotency-Key", id);
        h.put("X-Shopify-Webhook-Id", id);
        h.put("Linear-Delivery", id);
        h.put("Twitch-Eventsub-Message-Id", id);
        h.put("Twitch-Eventsub-Message-Timestamp", Instant.now().toString());
        h.put("Twitch-Eventsub-Message-Type", "webhook_callback_verification");
        h.put("webhook-id", "msg_" + id);
        h.put("webhook-timestamp", Long.toString(now));
        h.put("X-Slack-Request-Timestamp", Long.toString(now));
        h.put("X-Tenant", "t1");
        if (signed) {
            String zeros = "0".repeat(64);
            h.put("X-Hub-Signature-256", "sha256=" + zeros);
            h.put("Stripe-Signature", "t=" + now + ",v1=" + zeros);
            h.put("webhook-signature", "v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=");
            h.put("X-Shopify-Hmac-Sha256", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=");
            h.put("X-Slack-Signature", "v0=" + zeros);
            h.put("X-Gitlab-Token", "not-the-token");
            h.put("Twitch-Eventsub-Message-Signature", "sha256=" + zeros);
            h.put("x-square-hmacsha256-signature", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=");
            h.put("Linear-Signature", zeros);
            h.put("Paddle-Signature", "ts=" + now + ";h1=" + zeros);
            h.put("X-Signature", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=");
        }
        return h;
    }

    /** A body with every deduplication key a preset reads, and the shapes of Slack's and Twitch's handshakes. */
    static byte[] body() {
        String id = UUID.randomUUID().toString();
        return ("{\"id\":\"evt_" + id + "\",\"event_id\":\"" + id + "\",\"type\":\"url_verification\",\"challenge\":\"c-" + id
                + "\",\"subscription\":{\"id\":\"" + id + "\"},\"tenant\":\"t1\",\"webhookTimestamp\":" + System.currentTimeMillis()
                + "}").getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void everySourceRefusesAnUnsignedOrWronglySignedDeliveryBeforeWritingAnything() throws Exception {
        assertTrue(sources.all().size() > 10, "the test profile enables a source per preset");
        Map<String, Long> before = RouteSpellingsTest.rows();
        long storedBefore = figures("sum(accepted + duplicates)");
        List<String> accepted = new ArrayList<>();
        for (WebhookSource s : sources.all()) {
            for (boolean signed : List.of(false, true)) {
                RawHttp.Answer a = RawHttp.send(RouteSpellingsTest.port(), "POST", "/webhooks/" + s.name(), forgedHeaders(signed), body());
                // 401 (the signature), or 413 for a source whose body limit is below the body's size
                if (a.status() != 401 && a.status() != 413 || !a.body().contains("\"type\":\"/problems/")) {
                    accepted.add(s.name() + (signed ? " (wrong signature)" : " (unsigned)") + ": " + a.status() + " " + a.body());
                }
            }
        }
        assertEquals(List.of(), accepted, "deliveries that were not refused 401");
        assertEquals(before, RouteSpellingsTest.rows(), "rows written by unverified deliveries");
        // the sources' figures count the refusals, under configured names only, and nothing as delivered
        assertEquals(storedBefore, figures("sum(accepted + duplicates)"));
        String names = String.join("','", sources.all().stream().map(WebhookSource::name).toList());
        assertEquals(0, figures("count(*) FILTER (WHERE source NOT IN ('" + names + "'))"), "figures of another name");
    }

    /** An aggregate over the webhook sources' figures (exactly.webhook_minutes). */
    private static long figures(String aggregate) {
        return dev.exactly.testing.Db.number("SELECT coalesce(" + aggregate + ", 0) FROM exactly.webhook_minutes");
    }

    @Test
    void unknownSourcesUnroutedPathsAndRefusalsMakeNoSeriesNoRowsNoLogLines() throws Exception {
        int port = RouteSpellingsTest.port();
        Set<String> seriesBefore = RouteSpellingsTest.series();
        Map<String, Long> rowsBefore = RouteSpellingsTest.rows();
        List<String> made = new ArrayList<>();
        List<String> logged;
        try (LogCapture logs = LogCapture.open()) {
            for (int i = 0; i < 100; i++) {
                String name = "zz-" + UUID.randomUUID().toString().substring(0, 8);
                made.add(name);
                assertEquals(404, RawHttp.send(port, "POST", "/webhooks/" + name, forgedHeaders(true), body()).status());
                assertEquals(401, RawHttp.send(port, "POST", "/webhooks/github", forgedHeaders(i % 2 == 0), body()).status());
                assertEquals(401, RawHttp.send(port, "GET", "/" + name, Map.of(), null).status());
                assertEquals(401, RawHttp.send(port, "GET", "/api/v1/queues/" + name, Map.of(), null).status());
                assertEquals(401, RawHttp.send(port, "POST", "/api/v1/push", Map.of("Authorization", "Bearer " + name,
                        "Content-Type", "application/json"), RouteSpellingsTest.PUSH.getBytes(StandardCharsets.UTF_8)).status());
                assertEquals(403, RawHttp.send(port, "GET", "/" + name, Map.of("Authorization", "Bearer " + Api.TEST_API_KEY), null).status());
                assertEquals(400, RawHttp.send(port, "GET", "/" + name + "\\x", Map.of(), null).status());
                assertEquals(401, RawHttp.send(port, "GET", "/q/health/group/" + name, Map.of(), null).status());
            }
            logged = logs.records().stream().filter(r -> r.getLevel().intValue() >= Level.INFO.intValue())
                    .map(r -> r.getLevel() + " " + r.getLoggerName() + ": " + r.getFormattedMessage()).toList();
        }
        assertEquals(List.of(), logged, "log lines written for 800 refused requests");
        assertEquals(rowsBefore, RouteSpellingsTest.rows(), "rows written");
        assertEquals(0, figures("count(*) FILTER (WHERE source LIKE 'zz-%')"), "figures of an unknown name");
        Set<String> added = new TreeSet<>(RouteSpellingsTest.series());
        added.removeAll(seriesBefore);
        for (String name : made) {
            assertFalse(added.stream().anyMatch(s -> s.contains(name)), name + " became a metric series: " + added);
        }
        assertTrue(added.size() < 20, "a bounded number of new series (one per status and template): " + added);
        assertFalse(RouteSpellingsTest.series().stream().anyMatch(s -> s.contains("zz-")), "no series names a made-up source or path");
    }

    /**
     * The console's page shell is deliberately public (application.properties, permission
     * "public"): its static files and the chart library, which hold no data; /console redirects to
     * /console/. Only under their plain spelling: any other asks for the key. The API the page
     * reads stays closed.
     */
    @Test
    void theConsoleShellIsPublicUnderItsPlainSpellingOnly() throws Exception {
        int port = RouteSpellingsTest.port();
        RawHttp.Answer redirect = RawHttp.send(port, "GET", "/console", Map.of(), null);
        assertEquals(302, redirect.status());
        assertEquals("/console/", redirect.header("location"));
        for (String path : List.of("/console/", "/console/index.html", "/console/console.js", "/console/console.css",
                "/webjars/uplot/dist/uPlot.iife.min.js")) {
            assertEquals(200, RawHttp.send(port, "GET", path, Map.of(), null).status(), path);
        }
        assertEquals(404, RawHttp.send(port, "GET", "/console/none.js", Map.of(), null).status());
        for (String path : List.of("/Console/", "/console;x/", "/%63onsole/", "/console/./console.js", "/console/../api/v1/overview",
                "/api/v1/overview", "/api/v1/messages?queue=a&transactionId=b")) {
            assertEquals(401, RawHttp.send(port, "GET", path, Map.of(), null).status(), path);
        }
    }
}
