package dev.exactly.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.exactly.testing.Api;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Clients that ask for HTTP/2 get the same answers as any other. The JDK's own HttpClient does by
 * default: it offers an upgrade to HTTP/2 (h2c) on a new connection's first request that has no
 * body. A request without a body or without a Content-Length goes through {@link BodyLimitFilter}'s
 * counting read, and a request read to its end that way cannot be handed on as an HTTP/2 stream
 * (Quarkus REST pauses it, and Vert.x refuses to pause an HTTP/2 request already read: a 500). The
 * server speaks HTTP/1.1 for that reason, and these requests are answered as their routes say.
 */
@QuarkusTest
class Http2ClientsTest {

    @TestHTTPResource("/")
    URL base;

    /** A new client, and so a new connection whose first request offers the upgrade. */
    private HttpResponse<String> send(String method, String path, HttpRequest.BodyPublisher body) throws Exception {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2)
                .connectTimeout(Duration.ofSeconds(10)).build();
        HttpRequest request = HttpRequest.newBuilder(URI.create(base.toString()).resolve(path))
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + Api.TEST_API_KEY)
                .header("Content-Type", "application/json")
                .method(method, body).build();
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void bodylessRequestsAreAnsweredAsTheirRoutesSay() throws Exception {
        String queue = "h2-" + UUID.randomUUID().toString().substring(0, 8);
        HttpResponse<String> delete = send("DELETE", "/api/v1/tasks/none?queue=" + queue, HttpRequest.BodyPublishers.noBody());
        assertEquals(404, delete.statusCode(), delete.body());
        HttpResponse<String> maintenance = send("POST", "/api/v1/admin/maintenance", HttpRequest.BodyPublishers.noBody());
        assertEquals(200, maintenance.statusCode(), maintenance.body());
    }

    @Test
    void aBodyWithoutContentLengthIsStored() throws Exception {
        String queue = "h2-" + UUID.randomUUID().toString().substring(0, 8);
        byte[] body = ("{\"items\":[{\"queue\":\"" + queue + "\",\"transactionId\":\"t1\",\"payload\":{\"n\":1}}]}")
                .getBytes(StandardCharsets.UTF_8);
        HttpResponse<String> push = send("POST", "/api/v1/push",
                HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body)));
        assertEquals(200, push.statusCode(), push.body());
        HttpResponse<String> again = send("POST", "/api/v1/push",
                HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body)));
        assertEquals(200, again.statusCode(), again.body());
        assertEquals(true, again.body().contains("\"duplicate\""), again.body());
    }
}
