package dev.exactly.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.Api;
import dev.exactly.testing.RawHttp;
import io.quarkus.test.junit.QuarkusTest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

/**
 * Requests the HTTP layer refuses itself, before any route or filter (a control byte in a header,
 * Transfer-Encoding together with Content-Length, CONNECT), make no {@code http_server_requests}
 * series under the path they sent: they are counted under {@code /REFUSED_EARLY}, and the
 * series budget of the real routes stays theirs.
 */
@QuarkusTest
class MalformedRequestMetricsTest {

    static int port() {
        return ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
    }

    /** Writes the bytes and reads whatever comes back until the server closes (or 10 s pass). */
    static String raw(String request) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port())) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            InputStream in = s.getInputStream();
            try {
                in.transferTo(all);
            } catch (java.net.SocketTimeoutException | java.net.SocketException e) {
                // what arrived is enough
            }
            return all.toString(StandardCharsets.ISO_8859_1);
        }
    }

    @Test
    void requestsTheHttpLayerRefusesMakeNoSeriesOfTheirOwn() throws Exception {
        for (int i = 0; i < 40; i++) {
            String a = raw("GET /junk-ctl-" + i + " HTTP/1.1\r\nHost: x\r\nX: a\u0001b\r\n\r\n");
            assertTrue(a.startsWith("HTTP/1.1 400"), a);
            String b = raw("POST /api/v1/junk-te-" + i + " HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                    + "Content-Length: 5\r\nConnection: close\r\n\r\n0\r\n\r\n");
            assertTrue(b.startsWith("HTTP/1.1 4"), b);
            String c = raw("CONNECT 127.0.0.1:" + (20_000 + i) + " HTTP/1.1\r\nHost: 127.0.0.1:" + (20_000 + i)
                    + "\r\nConnection: close\r\n\r\n");
            assertTrue(c.startsWith("HTTP/1.1 4"), c);
        }
        assertEquals(200, Api.api().body("{\"items\":[{\"queue\":\"malformed-metrics\",\"transactionId\":\"m1\",\"payload\":1}]}")
                .post("/api/v1/push").statusCode());
        assertEquals(200, Api.api().get("/api/v1/queues/malformed-metrics/stats").statusCode());

        RawHttp.Answer metrics = RawHttp.send(port(), "GET", "/q/metrics", Map.of("Authorization", "Bearer " + Api.TEST_API_KEY), null);
        assertEquals(200, metrics.status());
        List<String> http = metrics.body().lines().filter(l -> l.startsWith("http_server_requests_seconds_count")).toList();
        List<String> junk = http.stream().filter(l -> l.contains("junk") || l.contains("127.0.0.1")).toList();
        assertEquals(List.of(), junk.size() > 5 ? junk.subList(0, 5) : junk, junk.size() + " series under the paths malformed requests sent");
        assertTrue(http.stream().anyMatch(l -> l.contains("uri=\"/api/v1/push\"") && l.contains("status=\"200\"")),
                "the push route's series: " + http);
        assertTrue(http.stream().anyMatch(l -> l.contains("uri=\"/api/v1/queues/{queue}/stats\"")),
                "a templated route keeps its template: " + http);
        assertTrue(http.stream().anyMatch(l -> l.contains("uri=\"/REFUSED_EARLY\"") && l.contains("status=\"400\"")),
                "the refusals under /REFUSED_EARLY: " + http);
    }
}
