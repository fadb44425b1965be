package dev.exactly.push;

import static dev.exactly.testing.Api.api;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.exactly.testing.Db;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Bad input answers 400/413 problem+json naming the item and field, and writes nothing at all. */
@QuarkusTest
class PushValidationTest {

    private long footprint;
    private long queues;

    @BeforeEach
    void before() {
        footprint = Db.writeFootprint();
        queues = Db.number("SELECT count(*) FROM exactly.queues");
    }

    @AfterEach
    void nothingWasWritten() {
        assertEquals(footprint, Db.writeFootprint(), "a refused request wrote rows");
        assertEquals(queues, Db.number("SELECT count(*) FROM exactly.queues"), "a refused request created a queue");
    }

    private static ValidatableResponse push(String body, int status) {
        return api().body(body).post("/api/v1/push").then().statusCode(status)
                .contentType("application/problem+json").body("status", equalTo(status));
    }

    private static ValidatableResponse invalid(String body, Integer index, String field) {
        ValidatableResponse r = push(body, 400).body("type", equalTo("/problems/invalid-request"))
                .body("errors[0].field", equalTo(field));
        return index == null ? r : r.body("errors[0].index", equalTo(index));
    }

    private static String one(String item) {
        return "{\"items\":[" + item + "]}";
    }

    @Test
    void malformedJson() {
        push("{\"items\":[", 400).body("detail", containsString("malformed JSON"));
        push("", 400);
        push("[]", 400);
        push("{\"items\":[]} trailing", 400);
    }

    /** What JSON does not allow is refused in JSON's terms, without the parser's options to allow it. */
    @Test
    void malformedJsonIsNotExplainedInTheParsersOptions() {
        for (String body : List.of(one("{\"queue\":\"q\",\"payload\":Infinity}"), one("{\"queue\":\"q\",\"payload\":NaN}"),
                one("{\"queue\":\"q\",\"payload\":+1}"), one("{\"queue\":\"q\",\"payload\":1} // note"),
                one("{'queue':\"q\",\"payload\":1}"), one("{\"queue\":\"q\",\"payload\":01}"))) {
            String detail = push(body, 400).body("detail", containsString("malformed JSON")).extract().path("detail");
            for (String internal : List.of("JsonReadFeature", "Feature '", "enable `", "ALLOW_")) {
                assertFalse(detail.contains(internal), body + " -> " + detail);
            }
        }
    }

    @Test
    void illFormedUtf8InAPayloadIsRefusedBecauseItCouldNotReadBackUnchanged() {
        byte[] head = "{\"items\":[{\"queue\":\"utf\",\"payload\":\"".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] tail = "\"}]}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] body = new byte[head.length + 2 + tail.length];
        System.arraycopy(head, 0, body, 0, head.length);
        body[head.length] = (byte) 0xC0; // overlong encoding of U+0000
        body[head.length + 1] = (byte) 0x80;
        System.arraycopy(tail, 0, body, head.length + 2, tail.length);
        api().body(body).post("/api/v1/push").then().statusCode(400).contentType("application/problem+json")
                .body("detail", containsString("UTF-8"));
    }

    /**
     * A payload holding a lone surrogate escape is refused, named down to its string, and nothing is
     * written (a new-user check: it was stored, and SQS or EventBridge would never take it).
     */
    @Test
    void aLoneSurrogateEscapeInAPayloadIsRefusedNamingWhereItIs() {
        invalid(one("{\"queue\":\"q\",\"payload\":{\"a\":\"\\ud800\"}}"), 0, "payload.a")
                .body("errors[0].message", containsString("lone surrogate escape \\ud800"));
        invalid("{\"items\":[{\"queue\":\"q\",\"payload\":1},{\"queue\":\"q\",\"payload\":[\"\\udc00\"]}]}", 1, "payload[0]");
        invalid(one("{\"queue\":\"q\",\"payload\":\"x\\ud83d\"}"), 0, "payload");
    }

    @Test
    void duplicateKeysAreRefused() {
        push(one("{\"queue\":\"v\",\"transactionId\":\"a\",\"transactionId\":\"b\",\"payload\":1}"), 400)
                .body("detail", containsString("Duplicate field"))
                .body("errors[0].index", equalTo(0)).body("errors[0].field", equalTo("transactionId"));
    }

    /** A name repeated inside a payload is named down to it (a new-user check: it was blamed on the item's own field). */
    @Test
    void aDuplicateKeyInsideAPayloadIsNamedWithItsPath() {
        push(one("{\"queue\":\"v\",\"transactionId\":\"a\",\"payload\":[1,{\"queue\":1,\"queue\":2}]}"), 400)
                .body("errors[0].index", equalTo(0)).body("errors[0].field", equalTo("payload[1].queue"))
                .body("detail", containsString("items[0].payload[1].queue"));
        push(one("{\"queue\":\"v\",\"payload\":{\"x\":{\"a\":1,\"a\":2}}}"), 400)
                .body("errors[0].index", equalTo(0)).body("errors[0].field", equalTo("payload.x.a"));
        push("{\"items\":[{\"queue\":\"v\",\"payload\":1},{\"queue\":\"v\",\"payload\":{\"b\":[{\"c\":1,\"c\":1}]}}]}", 400)
                .body("errors[0].index", equalTo(1)).body("errors[0].field", equalTo("payload.b[0].c"));
    }

    /** A second "items" member is the envelope's, not an item's (found by a new-user check: it was blamed on items[0]). */
    @Test
    void aDuplicateItemsMemberIsNamedAtTheTopLevel() {
        push("{\"items\":[],\"items\":[{\"queue\":\"v\",\"payload\":1}]}", 400)
                .body("detail", containsString("Duplicate field 'items'"))
                .body("errors[0].field", equalTo("items")).body("errors[0].index", org.hamcrest.Matchers.nullValue());
        push("{\"items\":[{\"queue\":\"v\",\"payload\":1}],\"items\":[]}", 400)
                .body("errors[0].field", equalTo("items")).body("errors[0].index", org.hamcrest.Matchers.nullValue());
    }

    @Test
    void missingQueueOrPayload() {
        invalid(one("{\"payload\":1}"), 0, "queue");
        invalid(one("{\"queue\":\"v\"}"), 0, "payload");
        invalid(one("{\"queue\":\"v\",\"payload\":null}"), 0, "payload");
        invalid("{}", null, "items");
        invalid("{\"items\":{}}", null, "items");
    }

    @Test
    void badNames() {
        invalid(one("{\"queue\":\"has space\",\"payload\":1}"), 0, "queue");
        invalid(one("{\"queue\":\"" + "q".repeat(256) + "\",\"payload\":1}"), 0, "queue");
        invalid(one("{\"queue\":\"v\",\"partition\":\"a/b\",\"payload\":1}"), 0, "partition");
        invalid(one("{\"queue\":\"v\",\"partition\":\"\",\"payload\":1}"), 0, "partition");
        invalid(one("{\"queue\":7,\"payload\":1}"), 0, "queue");
    }

    @Test
    void transactionIdLimits() {
        // 129 two-byte characters = 258 UTF-8 bytes
        invalid(one("{\"queue\":\"v\",\"transactionId\":\"" + "\u00e9".repeat(129) + "\",\"payload\":1}"), 0, "transactionId");
        invalid(one("{\"queue\":\"v\",\"transactionId\":\"\",\"payload\":1}"), 0, "transactionId");
        invalid(one("{\"queue\":\"v\",\"transactionId\":\"a\\u0000b\",\"payload\":1}"), 0, "transactionId");
        invalid(one("{\"queue\":\"v\",\"transactionId\":\"\\ud800\",\"payload\":1}"), 0, "transactionId");
    }

    @Test
    void unknownFieldsAreRefusedSoATypoCannotTurnDeduplicationOff() {
        invalid(one("{\"queue\":\"v\",\"transactionID\":\"a\",\"payload\":1}"), 0, "transactionID");
        invalid("{\"items\":[],\"extra\":1}", null, "extra");
    }

    @Test
    void oneBadItemRefusesTheWholeRequest() {
        String good = "{\"queue\":\"valid-but-refused\",\"transactionId\":\"g\",\"payload\":1}";
        invalid("{\"items\":[" + good + "," + good + ",{\"queue\":\"v\"}]}", 2, "payload");
    }

    @Test
    void tooManyItems() {
        StringBuilder b = new StringBuilder("{\"items\":[");
        for (int i = 0; i < 1001; i++) {
            b.append(i == 0 ? "" : ",").append("{\"queue\":\"many\",\"payload\":").append(i).append('}');
        }
        invalid(b.append("]}").toString(), null, "items").body("detail", containsString("1000"));
    }

    @Test
    void bodyOverTheLimitIs413() {
        String big = "x".repeat(6 * 1024 * 1024);
        push(one("{\"queue\":\"big\",\"payload\":\"" + big + "\"}"), 413)
                .body("type", equalTo("/problems/payload-too-large"));
    }

    @Test
    void aBodyOverTheOuterLimitIsRefusedBeforeItIsRead() {
        String huge = "x".repeat(17 * 1024 * 1024);
        push(one("{\"queue\":\"huge\",\"payload\":\"" + huge + "\"}"), 413)
                .body("type", equalTo("/problems/payload-too-large"));
    }

    @Test
    void aNegativeWindowIsRefused() {
        api().body("{\"queue\":\"neg\",\"options\":{\"dedupWindowSeconds\":-1}}").post("/api/v1/configure")
                .then().statusCode(400).contentType("application/problem+json")
                .body("errors[0].field", equalTo("options.dedupWindowSeconds"));
        api().body("{\"queue\":\"neg\",\"options\":{\"noSuchOption\":1}}").post("/api/v1/configure")
                .then().statusCode(400).body("errors[0].field", equalTo("options.noSuchOption"));
        api().body("{\"options\":{\"dedupWindowSeconds\":1.5}}").patch("/api/v1/queues/neg")
                .then().statusCode(400).body("errors[0].field", equalTo("options.dedupWindowSeconds"));
    }
}
