package dev.exactly.reliability;

import dev.exactly.testing.Api;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The outage tests' HTTP client for the service under test: JSON requests with the test API key,
 * each with a 60 s timeout, so a request that hangs while the database is away fails the test
 * instead of stalling it.
 */
final class ServiceHttp {

    private final HttpClient http = HttpClient.newHttpClient();
    private final URI base;

    /** @param base the service's root URL (a test's {@code @TestHTTPResource("/")}) */
    ServiceHttp(URL base) {
        this.base = URI.create(base.toString());
    }

    /**
     * @param method HTTP method
     * @param path   path and query, e.g. /api/v1/push
     * @param body   JSON body, or null for none
     * @return the answer, its body as text
     */
    HttpResponse<String> send(String method, String path, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + Api.TEST_API_KEY);
        b = body == null ? b.method(method, HttpRequest.BodyPublishers.noBody())
                : b.method(method, HttpRequest.BodyPublishers.ofString(body));
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** @return the status of a one-item push of {@code transactionId} to {@code queue} */
    int push(String queue, String transactionId) throws Exception {
        return send("POST", "/api/v1/push", "{\"items\":[{\"queue\":\"" + queue + "\",\"transactionId\":\""
                + transactionId + "\",\"payload\":{}}]}").statusCode();
    }

    /**
     * Pushes {@code transactionId} every 200 ms until it is answered 200 or {@code within} has passed
     * (the pool reconnects by itself after a database restart).
     *
     * @return the last status
     */
    int pushUntilAnswered(String queue, String transactionId, Duration within) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        int status = push(queue, transactionId);
        while (status != 200 && System.nanoTime() < deadline) {
            Thread.sleep(200);
            status = push(queue, transactionId);
        }
        return status;
    }
}
