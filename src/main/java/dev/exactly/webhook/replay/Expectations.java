package dev.exactly.webhook.replay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Expected replay counts, read from a JSON file in the corpus format
 * (github-deliveries.expected.json): total_posts = delivered, distinct_deliveries = stored,
 * retries = duplicates, tampered = rejected. A missing member is not checked;
 * same_body_other_id is informational (those deliveries are part of distinct_deliveries).
 */
public final class Expectations {

    private final JsonNode expected;

    private Expectations(JsonNode expected) {
        this.expected = expected;
    }

    /**
     * @param file the expectations file
     * @throws IOException when it cannot be read or is not a JSON object
     */
    public static Expectations read(Path file) throws IOException {
        JsonNode n = new ObjectMapper().readTree(file.toFile());
        if (n == null || !n.isObject()) {
            throw new IOException(file + ": expectations must be a JSON object");
        }
        return new Expectations(n);
    }

    /** @return one line per count that differs from its expectation; empty when all match */
    public List<String> mismatches(ReplayCounts c) {
        List<String> out = new ArrayList<>();
        check(out, "delivered", c.delivered(), "total_posts");
        check(out, "stored", c.stored(), "distinct_deliveries");
        check(out, "duplicates", c.duplicates(), "retries");
        check(out, "rejected", c.rejected(), "tampered");
        return out;
    }

    private void check(List<String> out, String name, int actual, String field) {
        JsonNode e = expected.get(field);
        if (e != null && e.canConvertToInt() && e.intValue() != actual) {
            out.add(name + " " + actual + ", expected " + e.intValue() + " (" + field + ")");
        }
    }
}
