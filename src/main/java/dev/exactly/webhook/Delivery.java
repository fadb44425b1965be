package dev.exactly.webhook;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.exactly.http.FieldLines;
import dev.exactly.problem.ApiProblem;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One webhook delivery as received: the exact body bytes and the request headers (looked up
 * case-insensitively, RFC 9110 section 5.1). The body is parsed as JSON only when a key,
 * partition or content hash needs it, and at most once. Not thread-safe; one per request.
 */
public final class Delivery {

    private static final ObjectMapper STRICT = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    private final byte[] body;
    private final Map<String, List<String>> headers;
    private JsonNode json;

    /**
     * @param body    the exact request body (not copied: the caller must not change it)
     * @param headers the request headers by name, each with its values in arrival order (several
     *                values are combined by the rule of {@link FieldLines})
     */
    public Delivery(byte[] body, Map<String, List<String>> headers) {
        this.body = body;
        TreeMap<String, List<String>> h = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        headers.forEach((k, v) -> h.merge(k, List.copyOf(v), (a, b) -> {
            List<String> all = new ArrayList<>(a);
            all.addAll(b);
            return List.copyOf(all);
        }));
        h.replaceAll((k, v) -> v.size() > 1 && !"Set-Cookie".equalsIgnoreCase(k) ? List.of(FieldLines.combined(k, v)) : v);
        this.headers = Collections.unmodifiableMap(h);
    }

    /** The exact body bytes, as signed by the sender and as stored. */
    public byte[] body() {
        return body;
    }

    /**
     * All headers, case-insensitive keys; a header sent on several lines has one value, its
     * lines joined by {@link FieldLines#combined} (Set-Cookie excepted).
     */
    public Map<String, List<String>> headers() {
        return headers;
    }

    /**
     * The header's value as every verifier and key extractor reads it: a header sent on several
     * lines has its values joined by "," ("; " for Cookie), the rule of {@link FieldLines} (which
     * the HTTP layer has already applied in both shapes).
     *
     * @return the header's value, or null when absent
     */
    public String header(String name) {
        List<String> v = headers.get(name);
        return v == null || v.isEmpty() ? null : v.get(0);
    }

    /**
     * The body as a JSON tree (duplicate object keys refused, as I-JSON, RFC 7493, requires).
     *
     * @param why what needs it, for the error message (e.g. "the key /id")
     * @throws ApiProblem 400 naming the body when it is not JSON
     */
    public JsonNode json(String why) {
        if (json == null) {
            try {
                json = body.length == 0 ? null : STRICT.readTree(body);
            } catch (JsonProcessingException e) {
                throw ApiProblem.invalid(null, "body", "must be JSON for " + why + ": "
                        + e.getOriginalMessage().lines().findFirst().orElse("") + " (at byte "
                        + (e.getLocation() == null ? "?" : e.getLocation().getByteOffset()) + ")");
            } catch (IOException e) {
                throw ApiProblem.invalid(null, "body", "unreadable: " + e.getMessage());
            }
            if (json == null) {
                throw ApiProblem.invalid(null, "body", "must be JSON for " + why + " (it is empty)");
            }
        }
        return json;
    }
}
