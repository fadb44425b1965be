package dev.exactly.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.exactly.problem.ApiProblem;
import java.io.IOException;

/** Parses small JSON request bodies into trees, refusing malformed JSON and duplicate keys with a 400 problem. */
public final class JsonBodies {

    private static final ObjectMapper STRICT = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    private JsonBodies() {
    }

    /**
     * @param body UTF-8 JSON
     * @return the root, which must be a JSON object
     * @throws ApiProblem 400 when the body is empty, malformed or not an object
     */
    public static JsonNode object(byte[] body) {
        JsonNode root;
        try {
            root = body.length == 0 ? null : STRICT.readTree(body);
        } catch (JsonProcessingException e) {
            throw ApiProblem.invalid(null, null, "malformed JSON: " + e.getOriginalMessage()
                    + " (at byte " + e.getLocation().getByteOffset() + ")");
        } catch (IOException e) {
            throw ApiProblem.invalid(null, null, "unreadable body: " + e.getMessage());
        }
        if (root == null || !root.isObject()) {
            throw ApiProblem.invalid(null, null, "the body must be a JSON object");
        }
        return root;
    }
}
