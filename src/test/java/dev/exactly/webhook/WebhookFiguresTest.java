package dev.exactly.webhook;

import static dev.exactly.consume.ConsumeFixtures.maintenance;
import static dev.exactly.testing.Api.anonymous;
import static dev.exactly.testing.Api.api;
import static dev.exactly.webhook.Signing.utf8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.Db;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The webhook sources' figures kept in the database (exactly.webhook_minutes), end to end against the
 * embedded PostgreSQL: each outcome of a delivery to an enabled source counted, nothing for a name no
 * enabled source has, the read endpoints, and the purge past the kept history. The source
 * {@code figures} (github preset, window-seconds 900) is this class's alone.
 */
@QuarkusTest
class WebhookFiguresTest {

    private static final String SOURCE = "figures";
    private static final String SECRET = "gh-test-secret";

    private static HttpResponse<String> github(String source, byte[] body, String delivery, String secret) {
        return WebhookClient.post(source, body, "Content-Type", "application/json", "X-GitHub-Event", "push",
                "X-GitHub-Delivery", delivery, "X-Hub-Signature-256", Signing.github(secret, body));
    }

    /** The listing's entry of a source, or null when not listed. */
    private static Map<String, Object> listed(String source) {
        List<Map<String, Object>> all = api().get("/api/v1/webhooks/sources").then().statusCode(200)
                .extract().jsonPath().getList("sources");
        return all.stream().filter(s -> source.equals(s.get("name"))).findFirst().orElse(null);
    }

    @SuppressWarnings("unchecked")
    private static long count(Map<String, Object> source, String period, String outcome) {
        return ((Number) ((Map<String, Object>) source.get(period)).get(outcome)).longValue();
    }

    private static long rows(String source) {
        return Db.number("SELECT count(*) FROM exactly.webhook_minutes WHERE source = '" + source + "'");
    }

    @Test
    void eachOutcomeOfADeliveryIsCountedForItsSource() {
        Map<String, Object> before = listed(SOURCE);
        String delivery = UUID.randomUUID().toString();
        byte[] body = utf8("{\"n\":\"" + delivery.substring(0, 8) + "\"}");

        assertEquals(200, github(SOURCE, body, delivery, SECRET).statusCode());
        assertEquals(200, github(SOURCE, body, delivery, SECRET).statusCode(), "a redelivery: duplicate");
        assertEquals(200, github(SOURCE, body, delivery, SECRET).statusCode(), "again");
        assertEquals(401, github(SOURCE, body, UUID.randomUUID().toString(), "not-the-secret").statusCode());
        // no X-GitHub-Delivery (the key): 400 (a 413 is counted too, but not awaited before its answer)
        assertEquals(400, WebhookClient.post(SOURCE, body, "Content-Type", "application/json", "X-GitHub-Event", "push",
                "X-Hub-Signature-256", Signing.github(SECRET, body)).statusCode());

        Map<String, Object> after = listed(SOURCE);
        for (String period : List.of("lastHour", "last24Hours")) {
            assertEquals(1, count(after, period, "accepted") - count(before, period, "accepted"), period);
            assertEquals(2, count(after, period, "duplicates") - count(before, period, "duplicates"), period);
            assertEquals(1, count(after, period, "signatureFailures") - count(before, period, "signatureFailures"), period);
            assertEquals(1, count(after, period, "rejected") - count(before, period, "rejected"), period);
        }
        assertNotNull(after.get("lastDeliveryAt"));
        assertNotNull(after.get("lastSignatureFailureAt"));
        assertEquals("github", after.get("preset"));
        assertEquals("github", after.get("signature"));
        assertEquals("webhooks.figures", after.get("queue"));
        assertEquals(Map.of("seconds", 900, "from", "source", "configuredSeconds", 900, "appliesAtNextDelivery", false,
                "queueExists", true), after.get("window"), "window-seconds of the source, applied by its first delivery");

        JsonPath hours = api().get("/api/v1/webhooks/sources/{s}/hours", SOURCE).then().statusCode(200).extract().jsonPath();
        assertEquals(SOURCE, hours.getString("source"));
        assertTrue(hours.getLong("hours.duplicates.sum()") >= 2, hours.prettify());
        assertTrue(hours.getLong("hours.signatureFailures.sum()") >= 1, hours.prettify());
    }

    @Test
    void aNameNoEnabledSourceHasGetsNoRowWhateverItSends() {
        byte[] body = utf8("{\"n\":1}");
        String unknown = "not-configured-" + UUID.randomUUID().toString().substring(0, 8);
        assertEquals(404, github(unknown, body, UUID.randomUUID().toString(), "whatever").statusCode());
        assertEquals(404, github(unknown, body, UUID.randomUUID().toString(), SECRET).statusCode());
        assertEquals(0, rows(unknown), "an unauthenticated request to an unknown name creates nothing");
        assertNull(listed(unknown));

        // gh-off is configured without a secret: disabled, answered 404, not counted, not listed
        long off = rows("gh-off");
        assertEquals(404, github("gh-off", body, UUID.randomUUID().toString(), SECRET).statusCode());
        assertEquals(off, rows("gh-off"));
        assertEquals(0, off);
        assertNull(listed("gh-off"));
    }

    @Test
    void signatureFailuresAddToOneRowPerMinuteNotOneEach() {
        long before = rows(SOURCE);
        byte[] body = utf8("{\"n\":2}");
        for (int i = 0; i < 25; i++) {
            assertEquals(401, github(SOURCE, body, UUID.randomUUID().toString(), "forged-" + i).statusCode());
        }
        // one minute's row, or two if a minute started during the loop
        assertTrue(rows(SOURCE) - before <= 2, "rows added: " + (rows(SOURCE) - before));
    }

    @Test
    void minutesPastTheKeptHistoryArePurgedButASourcesLastTimesStay() {
        String s = "purged-" + UUID.randomUUID().toString().substring(0, 8); // rows as an older configuration left them
        Db.execute("INSERT INTO exactly.webhook_minutes (source, minute, accepted, signature_failures, last_delivery_at, "
                + "last_failure_at) SELECT '" + s + "', date_trunc('minute', now()) - make_interval(days => d), 1, 0, "
                + "date_trunc('minute', now()) - make_interval(days => d), NULL FROM generate_series(8, 10) d");
        Db.execute("INSERT INTO exactly.webhook_minutes (source, minute, signature_failures, last_failure_at) VALUES ('"
                + s + "', date_trunc('minute', now()) - interval '9 days 1 minute', 1, now() - interval '9 days 1 minute')");
        Db.execute("INSERT INTO exactly.webhook_minutes (source, minute, accepted, last_delivery_at) VALUES ('"
                + s + "', date_trunc('minute', now()) - interval '2 days', 1, now() - interval '2 days')");
        assertEquals(5, rows(s));

        Map<String, Object> report = maintenance();
        assertTrue(((Number) report.get("purgedWebhookMinutes")).longValue() >= 3, report.toString());
        // kept: the minute inside 7 days, and the newest signature failure (the source's last failure time)
        assertEquals(2, rows(s));
        assertEquals(1, Db.number("SELECT count(*) FROM exactly.webhook_minutes WHERE source = '" + s
                + "' AND last_failure_at IS NOT NULL"));
        assertEquals(0, Db.number("SELECT count(*) FROM exactly.webhook_minutes WHERE minute < now() - interval '7 days'"
                + " AND source = '" + s + "' AND last_failure_at IS NULL"));
    }

    @Test
    void theReadEndpointsTakeTheKeyAndNoUnknownParameter() {
        anonymous().get("/api/v1/webhooks/sources").then().statusCode(401);
        anonymous().get("/api/v1/webhooks/sources/{s}/hours", SOURCE).then().statusCode(401);
        api().queryParam("source", SOURCE).get("/api/v1/webhooks/sources").then().statusCode(400);
        api().queryParam("hour", 3).get("/api/v1/webhooks/sources/{s}/hours", SOURCE).then().statusCode(400);
        api().queryParam("hours", 169).get("/api/v1/webhooks/sources/{s}/hours", SOURCE).then().statusCode(400);
        api().queryParam("hours", 0).get("/api/v1/webhooks/sources/{s}/hours", SOURCE).then().statusCode(400);
        api().queryParam("hours", 168).get("/api/v1/webhooks/sources/{s}/hours", SOURCE).then().statusCode(200);
        api().get("/api/v1/webhooks/sources/{s}/hours", "gh-off").then().statusCode(404);
        api().get("/api/v1/webhooks/sources").then().statusCode(200)
                .body("keptHours", org.hamcrest.Matchers.equalTo(168));
    }

    @Test
    void theWindowInForceSaysWhereItComesFrom() {
        DedupWindow preset = DedupWindow.preset(8 * 86400);
        DedupWindow explicit = DedupWindow.explicit(900, 8 * 86400);
        assertEquals(new WebhookSourceFigures.Window(8 * 86400, "preset", 8 * 86400, false, false),
                WebhookSourceFigures.Window.of(preset, null), "no queue yet: its first delivery creates it so");
        assertEquals(new WebhookSourceFigures.Window(8 * 86400, "preset", 8 * 86400, false, true),
                WebhookSourceFigures.Window.of(preset, 8 * 86400));
        assertEquals(new WebhookSourceFigures.Window(900, "source", 900, false, true),
                WebhookSourceFigures.Window.of(explicit, 900));
        assertEquals(new WebhookSourceFigures.Window(3600, "default", 900, true, true),
                WebhookSourceFigures.Window.of(explicit, 3600), "the queue default, replaced at the next delivery");
        assertEquals(new WebhookSourceFigures.Window(60, "queue", 900, false, true),
                WebhookSourceFigures.Window.of(explicit, 60), "set through the queue API: kept");
        assertEquals(new WebhookSourceFigures.Window(3600, "default", null, false, false),
                WebhookSourceFigures.Window.of(null, null));
        assertEquals(new WebhookSourceFigures.Window(120, "queue", null, false, true),
                WebhookSourceFigures.Window.of(null, 120));
        assertFalse(WebhookSourceFigures.Window.of(explicit, 60).appliesAtNextDelivery());
    }
}
