package dev.exactly.http;

import static dev.exactly.testing.Api.api;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.Db;
import io.quarkus.test.junit.QuarkusTest;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/** A compressed (or compressed-labelled) body is refused with 415 problem+json and writes nothing. */
@QuarkusTest
class ContentEncodingTest {

    private static byte[] gzip(String s) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(out)) {
            z.write(s.getBytes(StandardCharsets.UTF_8));
        }
        return out.toByteArray();
    }

    @Test
    void compressedBodiesAre415AndWriteNothing() throws Exception {
        String q = "enc-" + UUID.randomUUID();
        String body = "{\"items\":[{\"queue\":\"" + q + "\",\"transactionId\":\"t\",\"payload\":1}]}";
        api().header("Content-Encoding", "gzip").body(gzip(body)).post("/api/v1/push").then().statusCode(415)
                .contentType("application/problem+json").body("type", equalTo("/problems/unsupported-media-type"));
        api().header("Content-Encoding", "br").body(body).post("/api/v1/push").then().statusCode(415);
        // every Content-Encoding header counts, not only the first
        api().header("Content-Encoding", "identity").header("Content-Encoding", "br").body(body)
                .post("/api/v1/push").then().statusCode(415);
        // webhooks too: the stored payload must be the bytes the event means
        io.restassured.RestAssured.given().header("Content-Encoding", "gzip").body(gzip("{}"))
                .post("/webhooks/github").then().statusCode(415).contentType("application/problem+json");
        assertEquals(0, Db.number("SELECT count(*) FROM exactly.queues WHERE name = '" + q + "'"));
        api().header("Content-Encoding", "identity").body(body).post("/api/v1/push").then().statusCode(200)
                .body("results[0].status", equalTo("queued"));
    }

    @Test
    void identityIsTheOnlyCodingAccepted() {
        assertTrue(BodyLimitFilter.isIdentity("identity"));
        assertTrue(BodyLimitFilter.isIdentity(" Identity , identity"));
        assertTrue(BodyLimitFilter.isIdentity(""));
        assertFalse(BodyLimitFilter.isIdentity("gzip"));
        assertFalse(BodyLimitFilter.isIdentity("identity, gzip"));
    }
}
