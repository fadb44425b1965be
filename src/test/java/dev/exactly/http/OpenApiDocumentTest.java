package dev.exactly.http;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.engine.PushStatus;
import dev.exactly.queue.QueueOption;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * What /q/openapi promises a client generator (the generated client itself is exercised by
 * GeneratedClientIT in the integration-test phase): every JSON body typed, every refusal a
 * problem+json response, the bearer key on every /api route, unique operation ids.
 */
@QuarkusTest
class OpenApiDocumentTest {

    private static JsonPath document() {
        return given().queryParam("format", "json").get("/q/openapi").then().statusCode(200).extract().jsonPath();
    }

    @SuppressWarnings("unchecked")
    private static List<String[]> operations(JsonPath d) {
        List<String[]> out = new ArrayList<>();
        Map<String, Map<String, Object>> paths = d.getMap("paths");
        paths.forEach((path, item) -> item.keySet().forEach(method -> out.add(new String[] {path, method})));
        return out;
    }

    private static String at(String path, String method) {
        return "paths.'" + path + "'." + method;
    }

    @Test
    void everyJsonBodyHasItsSchema() {
        JsonPath d = document();
        for (String[] op : operations(d)) {
            Map<String, Object> content = d.getMap(at(op[0], op[1]) + ".requestBody.content");
            if (content == null || op[0].startsWith("/webhooks/")) {
                continue; // no body, or a provider's raw bytes
            }
            assertEquals(List.of("application/json"), new ArrayList<>(content.keySet()), op[1] + " " + op[0]);
            String ref = d.getString(at(op[0], op[1]) + ".requestBody.content.'application/json'.schema.'$ref'");
            assertTrue(ref != null && ref.startsWith("#/components/schemas/"), op[1] + " " + op[0] + ": " + ref);
            assertTrue(d.getMap("components.schemas").containsKey(ref.substring(ref.lastIndexOf('/') + 1)), ref);
        }
    }

    @Test
    void everyRouteDeclaresItsProblemAnswersAndApiRoutesTheBearerKey() {
        JsonPath d = document();
        assertEquals("bearer", d.getString("components.securitySchemes.apiKey.scheme"));
        for (String[] op : operations(d)) {
            String base = at(op[0], op[1]);
            for (String status : List.of("400", "503")) {
                assertEquals("#/components/schemas/Problem",
                        d.getString(base + ".responses.'" + status + "'.content.'application/problem+json'.schema.'$ref'"),
                        op[1] + " " + op[0] + " " + status);
            }
            boolean secured = d.getList(base + ".security") != null && !d.getList(base + ".security").isEmpty();
            assertEquals(op[0].startsWith("/api/"), secured, op[1] + " " + op[0]);
            if (op[0].startsWith("/api/")) {
                assertTrue(d.getMap(base + ".responses").containsKey("401"), op[1] + " " + op[0]);
            }
        }
    }

    @Test
    void operationIdsAreUniqueAndRawJsonFieldsAreUntyped() {
        JsonPath d = document();
        List<String> ids = operations(d).stream().map(op -> d.getString(at(op[0], op[1]) + ".operationId")).toList();
        assertEquals(ids.size(), ids.stream().distinct().count(), ids.toString());
        assertFalse(ids.contains(null));
        // the methods several resources share name their ids in @Operation: the build's scanner
        // then sees no duplicate, and generated clients keep these method names
        assertEquals("getQueue", d.getString(at("/api/v1/queues/{queue}", "get") + ".operationId"));
        assertEquals("listQueue", d.getString(at("/api/v1/queues", "get") + ".operationId"));
        assertEquals("getMessage", d.getString(at("/api/v1/messages/{messageId}", "get") + ".operationId"));
        assertEquals("getTask", d.getString(at("/api/v1/tasks/{id}", "get") + ".operationId"));
        assertEquals("listTask", d.getString(at("/api/v1/tasks", "get") + ".operationId"));
        // payloads and task data are any JSON value, not strings
        assertEquals(null, d.getString("components.schemas.PoppedMessage.properties.payload.type"));
        assertEquals(null, d.getString("components.schemas.TaskView.properties.data.type"));
        assertEquals(null, d.getString("components.schemas.PushItem.properties.payload.type"));
        assertFalse(d.getMap("components.schemas").containsKey(OpenApiDocument.ANY_JSON));
    }

    /** The hand-kept push item schema follows the record: a new push field forgotten there fails here. */
    @Test
    void thePushItemSchemaListsExactlyTheItemsFields() {
        JsonPath d = document();
        assertEquals(java.util.Arrays.stream(dev.exactly.push.PushRequest.Item.class.getRecordComponents())
                        .map(java.lang.reflect.RecordComponent::getName).collect(Collectors.toSet()),
                d.getMap("components.schemas.PushItem.properties").keySet());
        assertEquals("object", d.getString("components.schemas.PushItem.properties.headers.type"));
        assertEquals("string", d.getString("components.schemas.PushItem.properties.headers.additionalProperties.type"));
    }

    @Test
    void theQueueOptionsSchemaListsExactlyTheQueueOptionsWithTheirBounds() {
        JsonPath d = document();
        String at = "components.schemas.QueueOptionsInput";
        assertEquals(false, d.get(at + ".additionalProperties"));
        Map<String, Object> properties = d.getMap(at + ".properties");
        assertEquals(java.util.Arrays.stream(QueueOption.values()).map(QueueOption::wire).collect(Collectors.toSet()),
                properties.keySet(), "QueueOptionsInput must list every option QueueOption has, and no other");
        for (QueueOption o : QueueOption.values()) {
            String p = at + ".properties." + o.wire();
            if (o.named()) {
                assertEquals(o.names(), d.getList(p + ".enum"), o.wire());
            } else {
                assertEquals("integer", d.getString(p + ".type"), o.wire());
                assertEquals(o.min(), d.getInt(p + ".minimum"), o.wire());
                if (o.max() != Integer.MAX_VALUE) {
                    assertEquals(o.max(), d.getInt(p + ".maximum"), o.wire());
                }
            }
        }
    }

    @Test
    void aRefusedSpreadChangeAndTheVerdictsAreDescribed() {
        JsonPath d = document();
        for (String[] op : new String[][] {{"/api/v1/configure", "post"}, {"/api/v1/queues/{queue}", "patch"}}) {
            String base = at(op[0], op[1]) + ".responses.'409'";
            assertEquals("#/components/schemas/Problem",
                    d.getString(base + ".content.'application/problem+json'.schema.'$ref'"), op[1] + " " + op[0]);
            assertTrue(d.getString(base + ".description").contains("spread-change-refused"), op[1] + " " + op[0]);
        }
        assertTrue(d.getString(at("/api/v1/push", "post") + ".description").contains("spreadPartitions"));
        assertTrue(d.getString("components.schemas.PushItem.properties.partition.description")
                .contains("spreadPartitions"));
        assertEquals(java.util.Arrays.stream(PushStatus.values()).map(PushStatus::wire).toList(),
                d.getList("components.schemas.PushResult.properties.status.enum"));
        assertEquals(List.of("queued", "duplicate"), d.getList("components.schemas.WebhookReceipt.properties.verdict.enum"));
    }

    /**
     * The document the build stores in target/openapi (the one the generated client is built from,
     * GeneratedClientIT) is the served one: the same operations, and no "Auto generated" servers
     * (localhost, 0.0.0.0) that /q/openapi does not list either.
     */
    @Test
    void theStoredDocumentHasTheServedOperationsAndNoServers() throws Exception {
        JsonPath served = document();
        Path file = Path.of("target", "openapi", "openapi.json");
        assertTrue(Files.isRegularFile(file), "the test start stores the document: " + file.toAbsolutePath());
        JsonPath stored = JsonPath.from(Files.readString(file));
        assertEquals(null, served.getList("servers"));
        assertEquals(null, stored.getList("servers"), "stored document lists servers");
        assertEquals(operations(served).stream().map(op -> op[1] + " " + op[0]).sorted().toList(),
                operations(stored).stream().map(op -> op[1] + " " + op[0]).sorted().toList());
    }
}
