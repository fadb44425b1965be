package dev.exactly.reliability;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Random;

/**
 * A well-behaved HTTP client for soak operations: sends a JSON request and, on 503 (which must
 * carry Retry-After and a problem+json body) or a dropped connection, sends the same request
 * again after a short wait, until another answer arrives or {@code giveUpAt} (epoch ms) passes.
 */
final class SoakHttp {

    static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http;
    private final URI base;
    private final String apiKey;
    private final long giveUpAt;

    SoakHttp(HttpClient http, URI base, String apiKey, long giveUpAt) {
        this.http = http;
        this.base = base;
        this.apiKey = apiKey;
        this.giveUpAt = giveUpAt;
    }

    /**
     * @param path  e.g. /api/v1/pop
     * @param body  JSON text, or null for a GET
     * @return the first answer that is not a 503
     * @throws IllegalStateException when a 503 lacks Retry-After or problem+json, or the deadline passed
     */
    HttpResponse<String> call(String path, String body, Random rnd, SoakStats stats) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(90))
                .header("Authorization", "Bearer " + apiKey);
        HttpRequest request = body == null ? b.GET().build()
                : b.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build();
        while (true) {
            try {
                HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 503) {
                    return r;
                }
                if (r.headers().firstValue("Retry-After").isEmpty()
                        || !r.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json")) {
                    throw new IllegalStateException("503 without Retry-After or problem+json: " + r.headers().map());
                }
                stats.transientFailure("http 503 " + JSON.readTree(r.body()).path("type").asText());
            } catch (IOException e) {
                stats.transientFailure("http connection lost");
            }
            if (System.currentTimeMillis() > giveUpAt) {
                throw new IllegalStateException(path + ": gave up after transient failures");
            }
            Thread.sleep(100 + rnd.nextInt(150));
        }
    }
}
