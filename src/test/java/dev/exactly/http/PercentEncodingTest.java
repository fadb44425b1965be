package dev.exactly.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.exactly.testing.Api;
import dev.exactly.testing.ChunkedPost;
import dev.exactly.testing.ChunkedPost.Answer;
import dev.exactly.testing.Db;
import io.quarkus.test.junit.QuarkusTest;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A request target that is not a valid URI (a '%' not followed by two hexadecimal digits, RFC 3986
 * section 2.1) is refused with 400 and writes nothing, on API, webhook and health routes alike.
 * Known limit (docs/http-api.md, Requests and refusals): Quarkus' HTTP layer checks the target with {@code java.net.URI}
 * before any route or filter runs and answers that 400 with no body, so it is not problem+json.
 */
@QuarkusTest
class PercentEncodingTest {

    private static Answer post(String target, String body) throws Exception {
        return ChunkedPost.post(target, body.getBytes(StandardCharsets.UTF_8),
                "Authorization", "Bearer " + Api.TEST_API_KEY, "Content-Type", "application/json");
    }

    @Test
    void malformedEscapesAre400AndWriteNothing() throws Exception {
        String q = "pct-" + UUID.randomUUID();
        String body = "{\"items\":[{\"queue\":\"" + q + "\",\"transactionId\":\"t\",\"payload\":1}]}";
        for (String target : new String[] {"/api/v1/push?%zz", "/api/v1/push?after=%%%", "/api/v1/push?x=%4",
                "/api/v1/pu%zzsh", "/webhooks/git%hub", "/q/health?%zz"}) {
            assertEquals(400, post(target, body).status(), target);
        }
        assertEquals(0, Db.number("SELECT count(*) FROM exactly.queues WHERE name = '" + q + "'"));
        // the same push with a well-formed target is stored
        Answer ok = post("/api/v1/push", body);
        assertEquals(200, ok.status(), ok.text());
        assertEquals(1, Db.number("SELECT count(*) FROM exactly.queues WHERE name = '" + q + "'"));
    }

    /**
     * The other requests refused while they are read (docs/http-api.md, Requests and refusals): a request line over
     * quarkus.http.limits.max-initial-line-length is 414, headers over max-header-size 431; a push
     * that carries them writes nothing.
     */
    @Test
    void anOverlongRequestLineIs414AndOverlongHeadersAre431AndWriteNothing() throws Exception {
        String q = "long-" + UUID.randomUUID();
        String body = "{\"items\":[{\"queue\":\"" + q + "\",\"transactionId\":\"t\",\"payload\":1}]}";
        assertEquals(414, post("/api/v1/push?pad=" + "a".repeat(5000), body).status());
        Answer headers = ChunkedPost.post("/api/v1/push", body.getBytes(StandardCharsets.UTF_8),
                "Authorization", "Bearer " + Api.TEST_API_KEY, "Content-Type", "application/json",
                "X-Pad", "b".repeat(25_000));
        assertEquals(431, headers.status());
        assertEquals(0, Db.number("SELECT count(*) FROM exactly.queues WHERE name = '" + q + "'"));
    }
}
