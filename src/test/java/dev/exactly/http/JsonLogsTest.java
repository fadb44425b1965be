package dev.exactly.http;

import static dev.exactly.testing.Api.api;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.exactly.testing.LogCapture;
import dev.exactly.webhook.Signing;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jboss.logmanager.ExtHandler;
import org.jboss.logmanager.ExtLogRecord;
import org.jboss.logmanager.LogContext;
import org.jboss.logmanager.Logger;
import org.junit.jupiter.api.Test;

/**
 * The server shape with JSON logs selected ({@code quarkus.log.console.json.enabled=true}, as
 * QUARKUS_LOG_CONSOLE_JSON_ENABLED=true does): the console handler's formatter writes each record
 * as one JSON object on one line, with level, logger, message and the MDC the push path's adapters
 * put there (queue; the partition when the producer named it). The records are formatted by the console handler's own formatter,
 * as they are logged, on the thread that logs them.
 */
@QuarkusTest
@TestProfile(JsonLogsTest.Json.class)
class JsonLogsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** JSON console logs on. */
    public static class Json implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.log.console.json.enabled", "true",
                    "quarkus.log.category.\"dev.exactly.push\".level", "DEBUG");
        }
    }

    /** Collects what the console's formatter makes of each record. */
    static final class Capture extends ExtHandler {
        final List<String> lines = Collections.synchronizedList(new ArrayList<>());

        @Override
        protected void doPublish(ExtLogRecord record) {
            lines.add(getFormatter().format(record));
        }
    }


    @Test
    void aLogLineOfThePushPathIsOneJsonObjectWithItsQueueAndPartition() throws Exception {
        Capture capture = new Capture();
        capture.setFormatter(LogCapture.consoleHandler().getFormatter());
        Logger root = LogContext.getLogContext().getLogger("");
        root.addHandler(capture);
        try {
            // a push naming its partition (PushResource logs each push at DEBUG, on in this profile)
            api().body("{\"items\":[{\"queue\":\"logs-q\",\"partition\":\"p1\",\"transactionId\":\"t\",\"payload\":1}]}")
                    .post("/api/v1/push").then().statusCode(200);
            // the first delivery of a source in this (fresh) database creates its queue, and says so
            byte[] body = "{\"zen\":\"Design for failure.\"}".getBytes(StandardCharsets.UTF_8);
            given().header("X-GitHub-Event", "ping").header("X-GitHub-Delivery", UUID.randomUUID().toString())
                    .header("X-Hub-Signature-256", Signing.github("gh-test-secret", body)).header("X-Tenant", "acme")
                    .contentType("application/json").body(body).post("/webhooks/gh-tenant").then().statusCode(200);
        } finally {
            root.removeHandler(capture);
        }
        List<String> lines;
        synchronized (capture.lines) {
            lines = List.copyOf(capture.lines);
        }
        JsonNode window = null;
        JsonNode push = null;
        for (String line : lines) {
            assertTrue(line.endsWith("\n") && line.indexOf('\n') == line.length() - 1, "one line: " + line);
            JsonNode o = JSON.readTree(line);
            assertTrue(o.isObject(), line);
            if (o.path("message").asText().startsWith("webhook source gh-tenant: created queue webhooks.gh-tenant")) {
                window = o;
            }
            if (o.path("message").asText().equals("push: 1 items, 0 duplicate")) {
                push = o;
            }
        }
        assertTrue(push != null, "the push line among " + lines);
        assertEquals("DEBUG", push.path("level").asText(), push.toString());
        assertEquals("dev.exactly.push.PushResource", push.path("logger").asText(), push.toString());
        assertEquals("logs-q", push.at("/mdc/queue").asText(), push.toString());
        assertEquals("p1", push.at("/mdc/partition").asText(), push.toString());
        assertTrue(push.hasNonNull("timestamp"), push.toString());
        java.time.OffsetDateTime.parse(push.path("timestamp").asText());
        // a webhook delivery: the queue; no partition, since a queue that spreads by key replaces the source's
        assertTrue(window != null, "the QueueWindows line among " + lines);
        assertEquals("INFO", window.path("level").asText(), window.toString());
        assertEquals("dev.exactly.webhook.QueueWindows", window.path("logger").asText(), window.toString());
        assertEquals("webhooks.gh-tenant", window.at("/mdc/queue").asText(), window.toString());
        assertTrue(window.at("/mdc/partition").isMissingNode(), window.toString());
    }
}
