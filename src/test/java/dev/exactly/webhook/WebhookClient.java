package dev.exactly.webhook;

import io.restassured.RestAssured;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/**
 * Posts exact bytes and headers to the test application's /webhooks/{source} on loopback, as a
 * provider would (java.net.http: no charset appended to the content type, the body untouched).
 */
public final class WebhookClient {

    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private WebhookClient() {
    }

    /** The URL of a source on the running test application. */
    public static URI url(String source) {
        return URI.create("http://127.0.0.1:" + RestAssured.port + "/webhooks/" + source);
    }

    /**
     * @param source      the source name
     * @param body        the exact body
     * @param headerPairs header name/value pairs
     * @return the response, body as text
     */
    public static HttpResponse<String> post(String source, byte[] body, String... headerPairs) {
        HttpRequest.Builder b = HttpRequest.newBuilder(url(source)).POST(HttpRequest.BodyPublishers.ofByteArray(body));
        for (int i = 0; i < headerPairs.length; i += 2) {
            b.header(headerPairs[i], headerPairs[i + 1]);
        }
        try {
            return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The Exactly-Verdict header, or null. */
    public static String verdict(HttpResponse<?> r) {
        return r.headers().firstValue("Exactly-Verdict").orElse(null);
    }

    /** The Exactly-Message-Id header, or null. */
    public static String messageId(HttpResponse<?> r) {
        return r.headers().firstValue("Exactly-Message-Id").orElse(null);
    }
}
