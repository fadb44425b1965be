package dev.exactly.docs;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.junit.QuarkusTest;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * docs/http-api.md's route table against the OpenAPI document the service serves (the one the
 * build writes to target/openapi): the same routes, each with the same query parameters and the
 * same answers. On a difference the failure prints the rows the document calls for.
 */
@QuarkusTest
class DocsHttpApiTest {

    private static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "patch", "head", "options");

    @Test
    void theRouteTableIsTheOpenApiDocuments() throws Exception {
        JsonNode doc = new ObjectMapper().readTree(
                given().queryParam("format", "json").get("/q/openapi").then().statusCode(200).extract().asString());
        Map<String, String> expected = new TreeMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> paths = doc.path("paths").fields(); paths.hasNext(); ) {
            Map.Entry<String, JsonNode> path = paths.next();
            for (Iterator<Map.Entry<String, JsonNode>> ops = path.getValue().fields(); ops.hasNext(); ) {
                Map.Entry<String, JsonNode> op = ops.next();
                if (!METHODS.contains(op.getKey())) {
                    continue;
                }
                Set<String> query = new TreeSet<>();
                for (JsonNode p : op.getValue().path("parameters")) {
                    if ("query".equals(p.path("in").asText())) {
                        query.add(p.path("name").asText());
                    }
                }
                Set<String> answers = new TreeSet<>();
                op.getValue().path("responses").fieldNames().forEachRemaining(answers::add);
                expected.put(op.getKey().toUpperCase(Locale.ROOT) + " " + path.getKey(),
                        String.join(", ", query) + " | " + String.join(", ", answers));
            }
        }
        assertTrue(expected.size() > 20, "the document's routes are read: " + expected.keySet());

        Map<String, String> documented = new TreeMap<>();
        for (List<String> row : Markdown.read("docs/http-api.md").tableRows("method")) {
            String route = row.get(0) + " " + row.get(1).replace("`", "");
            String before = documented.put(route, row.get(2) + " | " + row.get(4));
            assertNull(before, "documented twice: " + route);
        }
        if (!expected.equals(documented)) {
            List<String> rows = new ArrayList<>();
            expected.forEach((route, v) -> {
                String[] mp = route.split(" ", 2);
                String[] qa = v.split(" \\| ", -1);
                rows.add("| " + mp[0] + " | `" + mp[1] + "` | " + qa[0] + " | … | " + qa[1] + " | … |");
            });
            assertEquals(expected, documented, "docs/http-api.md's routes against /q/openapi; the document calls for:\n"
                    + String.join("\n", rows));
        }
    }
}
