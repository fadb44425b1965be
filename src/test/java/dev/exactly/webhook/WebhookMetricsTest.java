package dev.exactly.webhook;

import static dev.exactly.webhook.Signing.utf8;
import static dev.exactly.webhook.WebhookClient.post;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The webhook counters after real deliveries, read from the MeterRegistry and from /q/metrics. */
@QuarkusTest
class WebhookMetricsTest {

    private static final String SECRET = "gh-test-secret";

    @Inject
    MeterRegistry registry;

    private double count(String name, String source, String... tags) {
        var search = registry.find(name).tag("source", source);
        for (int i = 0; i < tags.length; i += 2) {
            search = search.tag(tags[i], tags[i + 1]);
        }
        var c = search.counter();
        return c == null ? Double.NaN : c.count();
    }

    private double rejected(String source, String reason) {
        return count("exactly.webhook.deliveries.rejected", source, "reason", reason);
    }

    @Test
    void everyOutcomeIsCountedPerSourceAndReason() {
        double received = count("exactly.webhook.deliveries.received", "metered");
        double stored = count("exactly.webhook.deliveries.stored", "metered");
        double duplicate = count("exactly.webhook.deliveries.duplicate", "metered");
        double signature = rejected("metered", "signature");
        double keyMissing = rejected("metered", "key-missing");
        double tooLarge = rejected("metered", "too-large");

        String delivery = UUID.randomUUID().toString();
        byte[] body = utf8("{\"zen\":\"x\"}");
        assertEquals(200, post("metered", body, "X-GitHub-Delivery", delivery, "X-Hub-Signature-256",
                Signing.github(SECRET, body)).statusCode());
        assertEquals(200, post("metered", body, "X-GitHub-Delivery", delivery, "X-Hub-Signature-256",
                Signing.github(SECRET, body)).statusCode());
        assertEquals(401, post("metered", body, "X-GitHub-Delivery", delivery, "X-Hub-Signature-256",
                Signing.github("wrong", body)).statusCode());
        assertEquals(400, post("metered", body, "X-Hub-Signature-256", Signing.github(SECRET, body)).statusCode());
        byte[] big = new byte[65];
        Arrays.fill(big, (byte) 'a');
        assertEquals(413, post("metered", big, "X-GitHub-Delivery", delivery, "X-Hub-Signature-256",
                Signing.github(SECRET, big)).statusCode());

        assertEquals(received + 5, count("exactly.webhook.deliveries.received", "metered"));
        assertEquals(stored + 1, count("exactly.webhook.deliveries.stored", "metered"));
        assertEquals(duplicate + 1, count("exactly.webhook.deliveries.duplicate", "metered"));
        assertEquals(signature + 1, rejected("metered", "signature"));
        assertEquals(keyMissing + 1, rejected("metered", "key-missing"));
        assertEquals(tooLarge + 1, rejected("metered", "too-large"));
        assertEquals(0.0, rejected("metered", "timestamp"));
    }

    @Test
    void aStaleTimestampIsCountedApartFromABadSignature() {
        double timestamp = rejected("stripe", "timestamp");
        double signature = rejected("stripe", "signature");
        byte[] body = utf8("{\"id\":\"evt_" + UUID.randomUUID().toString().replace("-", "") + "\"}");
        long old = System.currentTimeMillis() / 1000 - 3600;
        assertEquals(401, post("stripe", body, "Stripe-Signature",
                Signing.stripe("whsec_stripe-test-secret", old, body)).statusCode());
        assertEquals(timestamp + 1, rejected("stripe", "timestamp"));
        assertEquals(signature, rejected("stripe", "signature"));
    }

    @Test
    void prometheusShowsEveryEnabledSourceAndNoUnknownOrDisabledOne() {
        // a delivery to an unknown or disabled source is counted nowhere: the source tag stays bounded
        assertEquals(404, post("no-such-source", utf8("{}")).statusCode());
        assertEquals(404, post("gh-off", utf8("{}")).statusCode());
        String text = given().get("/q/metrics").then().statusCode(200).extract().asString();
        // gh-off is configured without a secret (as every predefined source is until its secret is set)
        assertFalse(text.contains("source=\"gh-off\""), "a disabled source has no meters");
        assertTrue(text.contains("exactly_webhook_deliveries_rejected_total{reason=\"key-missing\",source=\"paddle\"}"),
                "every reason of every source from the start");
        assertTrue(text.contains("exactly_webhook_deliveries_stored_total{source=\"metered\"}"));
        assertTrue(text.contains("exactly_webhook_deliveries_duplicate_total{source=\"linear\"}"));
        assertFalse(text.contains("no-such-source"));
    }

    /**
     * A request refused before routing (413 on its Content-Length, 401 without a key: anything any
     * client can send to any path) is recorded under a route template, never under its raw path:
     * otherwise each new path would be a new http_server_requests series.
     */
    @Test
    void requestsRefusedEarlyAreRecordedUnderATemplate() throws Exception {
        String random = "zz" + UUID.randomUUID().toString().replace("-", "");
        assertEquals(413, statusOfAnnouncedBody("/webhooks/" + random, Long.MAX_VALUE / 2));
        assertEquals(401, statusOfAnnouncedBody("/" + random, Long.MAX_VALUE / 2), "a path no permission opens: the key first");
        assertEquals(401, statusOfAnnouncedBody("/api/v1/" + random, Long.MAX_VALUE / 2), "no key: refused before its body");
        assertEquals(413, statusOfAnnouncedBody("/webhooks/gh-small", 65));
        String text = given().get("/q/metrics").then().statusCode(200).extract().asString();
        assertFalse(text.contains(random), "a raw path in the metrics: " + text.lines()
                .filter(l -> l.contains(random)).findFirst().orElse(""));
        assertTrue(text.lines().anyMatch(l -> l.startsWith("http_server_requests_seconds_count{")
                && l.contains("status=\"413\"") && l.contains("uri=\"/REFUSED_EARLY\"")), "unrouted refusals under /REFUSED_EARLY: "
                + text.lines().filter(l -> l.startsWith("http_server_requests_seconds_count{")).toList());
        assertTrue(text.lines().anyMatch(l -> l.startsWith("http_server_requests_seconds_count{")
                && l.contains("status=\"413\"") && l.contains("uri=\"/webhooks/{source}\"")), "a source's refusals under its route");
        assertTrue(text.lines().anyMatch(l -> l.startsWith("http_server_requests_seconds_count{")
                && l.contains("status=\"401\"") && l.contains("uri=\"/REFUSED_EARLY\"")), "401s without a key under /REFUSED_EARLY");
    }

    /** Sends only the head of a POST announcing a body of {@code length} bytes; returns the status answered. */
    private static int statusOfAnnouncedBody(String path, long length) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), RestAssured.port)) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(("POST " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: "
                    + length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String head = new String(s.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
            return Integer.parseInt(head.substring(9, 12));
        }
    }
}
