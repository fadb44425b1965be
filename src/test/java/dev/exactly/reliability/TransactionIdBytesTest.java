package dev.exactly.reliability;

import static dev.exactly.testing.Api.api;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.nio.charset.StandardCharsets;
import java.text.Normalizer;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Explicit transactionIds compare byte for byte (their UTF-8 bytes): no Unicode normalisation,
 * no case folding, no trimming. Two spellings that look alike are two ids.
 */
@QuarkusTest
class TransactionIdBytesTest {

    private static JsonPath push(String queue, String... txns) {
        StringBuilder b = new StringBuilder("{\"items\":[");
        for (int i = 0; i < txns.length; i++) {
            b.append(i == 0 ? "" : ",").append("{\"queue\":\"").append(queue).append("\",\"transactionId\":\"")
                    .append(txns[i]).append("\",\"payload\":").append(i).append('}');
        }
        byte[] body = b.append("]}").toString().getBytes(StandardCharsets.UTF_8);
        return api().body(body).post("/api/v1/push").then().statusCode(200).extract().jsonPath();
    }

    @Test
    void nfcAndNfdFormsOfOneIdAreTwoIds() {
        String nfc = Normalizer.normalize("café-Å-42", Normalizer.Form.NFC);
        String nfd = Normalizer.normalize("café-Å-42", Normalizer.Form.NFD);
        assertNotEquals(nfc, nfd);
        assertEquals(Normalizer.normalize(nfd, Normalizer.Form.NFC), nfc, "one id, two forms");
        String q = "bytes-" + UUID.randomUUID();
        JsonPath first = push(q, nfc, nfd);
        assertEquals(List.of("queued", "queued"), first.getList("results.status"));
        assertNotEquals(first.getString("results[0].messageId"), first.getString("results[1].messageId"));
        // each id comes back exactly as it was sent
        assertEquals(nfc, first.getString("results[0].transactionId"));
        assertEquals(nfd, first.getString("results[1].transactionId"));
        // and each is a duplicate of itself only
        JsonPath again = push(q, nfd, nfc);
        assertEquals(List.of("duplicate", "duplicate"), again.getList("results.status"));
        assertEquals(first.getString("results[1].messageId"), again.getString("results[0].messageId"));
        assertEquals(first.getString("results[0].messageId"), again.getString("results[1].messageId"));
    }

    @Test
    void lookAlikeIdsAreDistinct() {
        String q = "bytes-" + UUID.randomUUID();
        // U+212B ANGSTROM SIGN vs U+00C5; U+FB01 LIGATURE FI vs "fi"; case; a trailing space
        JsonPath r = push(q, "\u212B", "\u00C5", "\uFB01", "fi", "FI", "fi ");
        assertEquals(List.of("queued", "queued", "queued", "queued", "queued", "queued"), r.getList("results.status"));
    }
}
