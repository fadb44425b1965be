package dev.exactly.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Random;
import java.util.UUID;

/**
 * Reads back, through GET /api/v1/messages/{id}, a message some client was told about: it must
 * be there (a 404 is a lost message) with the queue, partition and transactionId of the ledger.
 * Retries 503 and dropped connections.
 */
final class HttpReadBack implements SoakOperation {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http;
    private final URI base;
    private final String apiKey;
    private final PushLedger ledger;
    private final long giveUpAt;

    HttpReadBack(HttpClient http, URI base, String apiKey, PushLedger ledger, long giveUpAt) {
        this.http = http;
        this.base = base;
        this.apiKey = apiKey;
        this.ledger = ledger;
        this.giveUpAt = giveUpAt;
    }

    @Override
    public String name() {
        return "read-http";
    }

    @Override
    public void run(Random rnd, SoakStats stats) throws Exception {
        PushLedger.Key key = ledger.randomAnswered(rnd);
        UUID id = key == null ? null : ledger.knownId(key);
        if (id == null) {
            Thread.sleep(20);
            return;
        }
        HttpRequest request = HttpRequest.newBuilder(base.resolve("/api/v1/messages/" + id)).timeout(Duration.ofSeconds(90))
                .header("Authorization", "Bearer " + apiKey).GET().build();
        while (true) {
            try {
                HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    JsonNode m = JSON.readTree(r.body());
                    if (!key.transactionId().equals(m.get("transactionId").asText()) || !key.queue().equals(m.get("queue").asText())
                            || !key.partition().equals(m.get("partition").asText())) {
                        throw new IllegalStateException("message " + id + " is not " + key + ": " + r.body());
                    }
                    stats.operation(name());
                    return;
                }
                if (r.statusCode() != 503) {
                    throw new IllegalStateException("GET message " + id + " of " + key + ": HTTP " + r.statusCode() + " " + r.body());
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
