package dev.exactly.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Random;

/**
 * Reconfigures a queue through POST /api/v1/configure (full replace) while it is pushed to:
 * random lease time and retry limit, the deduplication window always {@code windowSeconds} (a
 * shorter window would rightly let ids be stored twice). Retries 503 and dropped connections
 * with the same body; the 200 answer must echo what was sent.
 */
final class HttpConfigure implements SoakOperation {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http;
    private final URI configure;
    private final String apiKey;
    private final List<String> queues;
    private final int windowSeconds;
    private final long giveUpAt;

    HttpConfigure(HttpClient http, URI base, String apiKey, List<String> queues, int windowSeconds, long giveUpAt) {
        this.http = http;
        this.configure = base.resolve("/api/v1/configure");
        this.apiKey = apiKey;
        this.queues = queues;
        this.windowSeconds = windowSeconds;
        this.giveUpAt = giveUpAt;
    }

    @Override
    public String name() {
        return "configure-http";
    }

    @Override
    public void run(Random rnd, SoakStats stats) throws Exception {
        String queue = queues.get(rnd.nextInt(queues.size()));
        int lease = 1 + rnd.nextInt(600);
        int retries = rnd.nextInt(6);
        String body = "{\"queue\":\"" + queue + "\",\"options\":{\"dedupWindowSeconds\":" + windowSeconds
                + ",\"leaseTime\":" + lease + ",\"retryLimit\":" + retries + "}}";
        HttpRequest request = HttpRequest.newBuilder(configure).timeout(Duration.ofSeconds(90))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + apiKey)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        while (true) {
            try {
                HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    JsonNode o = JSON.readTree(r.body()).get("options");
                    if (o.get("dedupWindowSeconds").asInt() != windowSeconds || o.get("leaseTime").asInt() != lease
                            || o.get("retryLimit").asInt() != retries) {
                        throw new IllegalStateException("configure answered other options: " + r.body());
                    }
                    stats.operation(name());
                    return;
                }
                if (r.statusCode() != 503 || r.headers().firstValue("Retry-After").isEmpty()) {
                    throw new IllegalStateException("HTTP " + r.statusCode() + ": " + r.body());
                }
                stats.transientFailure("http 503 " + JSON.readTree(r.body()).path("type").asText());
            } catch (IOException e) {
                stats.transientFailure("http connection lost");
            }
            if (System.currentTimeMillis() > giveUpAt) {
                stats.error(name() + ": gave up after transient failures");
                return;
            }
            Thread.sleep(100 + rnd.nextInt(100));
        }
    }
}
