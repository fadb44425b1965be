package dev.exactly.http;

import static dev.exactly.testing.Api.api;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.ChunkedPost;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Each route's own body limit (dev.exactly.http.BodyLimitFilter): a task limit above the push
 * limit is honoured on the task routes, push and transaction keep the push limit, a webhook source
 * keeps its own; every 413 is problem+json naming the limit and its key, and a chunked body over a
 * route's limit is refused before it has been sent whole.
 */
@QuarkusTest
@TestProfile(RouteBodyLimitsTest.LargeTaskLimit.class)
class RouteBodyLimitsTest {

    private static final long PUSH_LIMIT = 6_291_456;
    private static final long TASK_LIMIT = 8_388_608;
    private static final int SEVEN_MIB = 7 * 1024 * 1024;

    /** A task limit of 8 MiB, above the push limit's default 6 MiB. */
    public static class LargeTaskLimit implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("exactly.tasks.max-body-bytes", Long.toString(TASK_LIMIT));
        }
    }

    @Test
    void aTaskLimitAboveThePushLimitIsHonoured() {
        String queue = "limits-" + UUID.randomUUID().toString().substring(0, 8);
        String task = "{\"queue\":\"" + queue + "\",\"type\":\"big\",\"data\":\"" + "x".repeat(SEVEN_MIB) + "\"}";
        api().body(task).post("/api/v1/tasks").then().statusCode(200);
        api().body("{\"queue\":\"" + queue + "\"}").post("/api/v1/tasks/claim").then().statusCode(200)
                .body("tasks.size()", equalTo(1));
    }

    @Test
    void pushAndTransactionKeepThePushLimit() {
        String item = "{\"queue\":\"limits\",\"payload\":\"" + "x".repeat(SEVEN_MIB) + "\"}";
        for (String[] route : new String[][]{{"/api/v1/push", "{\"items\":[" + item + "]}"},
                {"/api/v1/transaction", "{\"operations\":[{\"type\":\"push\",\"items\":[" + item + "]}]}"}}) {
            api().body(route[1]).post(route[0]).then().statusCode(413)
                    .contentType("application/problem+json")
                    .body("type", equalTo("/problems/payload-too-large"))
                    .body("detail", containsString(PUSH_LIMIT + " bytes (exactly.push.max-body-bytes)"));
        }
    }

    @Test
    void aChunkedBodyOverTheTaskLimitIsRefusedBeforeItIsReadWhole() throws Exception {
        // never ended: only a refusal at the limit can answer
        String answer = ChunkedPost.unfinished("/api/v1/tasks", TASK_LIMIT + 1024 * 1024);
        assertTrue(answer.startsWith("HTTP/1.1 413"), answer);
        assertTrue(answer.toLowerCase().contains("content-type: application/problem+json"), answer);
        assertTrue(answer.contains(TASK_LIMIT + " bytes (exactly.tasks.max-body-bytes)"), answer);
    }

    @Test
    void aWebhookSourceKeepsItsOwnLimit() throws Exception {
        // gh-small: max-body-bytes 64 (src/test/resources/META-INF/microprofile-config.properties)
        String answer = ChunkedPost.unfinished("/webhooks/gh-small", 128 * 1024);
        assertTrue(answer.startsWith("HTTP/1.1 413"), answer);
        assertTrue(answer.contains("64 bytes (exactly.webhooks.sources.gh-small.max-body-bytes)"), answer);
    }
}
