package dev.exactly.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.exactly.engine.PushCommand;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.UUID;

/**
 * Pushes through the service's HTTP API, as a producer does: on 503 it waits (Retry-After,
 * capped at {@code maxWaitMs} to keep a short run busy) and on a dropped HTTP connection it
 * retries the same body, until answered or {@code giveUpAt} (epoch ms). A 503 must carry
 * Retry-After and a problem+json body; anything else than 200 or 503 is an error.
 */
final class HttpPush implements SoakOperation {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http;
    private final URI push;
    private final String apiKey;
    private final PushTraffic traffic;
    private final long giveUpAt;
    private final long maxWaitMs;

    HttpPush(HttpClient http, URI base, String apiKey, PushTraffic traffic, long giveUpAt, long maxWaitMs) {
        this.http = http;
        this.push = base.resolve("/api/v1/push");
        this.apiKey = apiKey;
        this.traffic = traffic;
        this.giveUpAt = giveUpAt;
        this.maxWaitMs = maxWaitMs;
    }

    @Override
    public String name() {
        return "push-http";
    }

    @Override
    public void run(Random rnd, SoakStats stats) throws Exception {
        List<PushCommand> items = traffic.next(rnd, "http");
        ObjectNode body = JSON.createObjectNode();
        ArrayNode array = body.putArray("items");
        for (PushCommand c : items) {
            ObjectNode it = array.addObject();
            it.put("queue", c.queue()).put("partition", c.partition()).put("transactionId", c.transactionId());
            it.set("payload", JSON.readTree(c.payload()));
        }
        HttpRequest request = HttpRequest.newBuilder(push).timeout(Duration.ofSeconds(90))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + apiKey)
                .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body))).build();
        traffic.attempted(items);
        while (true) {
            long waitMs;
            try {
                HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
                if (r.statusCode() == 200) {
                    JsonNode results = JSON.readTree(r.body()).get("results");
                    if (results == null || results.size() != items.size()) {
                        throw new IllegalStateException("200 without one result per item: " + r.body());
                    }
                    for (JsonNode res : results) {
                        traffic.ledger().answered(new PushLedger.Key(res.get("queue").asText(), res.get("partition").asText(),
                                res.get("transactionId").asText()), UUID.fromString(res.get("messageId").asText()),
                                "queued".equals(res.get("status").asText()));
                    }
                    stats.operation(name());
                    return;
                }
                if (r.statusCode() != 503) {
                    throw new IllegalStateException("HTTP " + r.statusCode() + ": " + r.body());
                }
                String retryAfter = r.headers().firstValue("Retry-After").orElseThrow(
                        () -> new IllegalStateException("503 without Retry-After: " + r.body()));
                if (!r.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json")) {
                    throw new IllegalStateException("503 without problem+json: " + r.headers().map());
                }
                stats.transientFailure("http 503 " + JSON.readTree(r.body()).path("type").asText());
                waitMs = Math.min(maxWaitMs, Long.parseLong(retryAfter) * 1000);
            } catch (IOException e) {
                stats.transientFailure("http connection lost");
                waitMs = 50;
            }
            if (System.currentTimeMillis() > giveUpAt) {
                stats.error(name() + ": gave up after transient failures");
                return;
            }
            Thread.sleep(waitMs + rnd.nextInt(50));
        }
    }
}
