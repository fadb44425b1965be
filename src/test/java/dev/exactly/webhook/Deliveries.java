package dev.exactly.webhook;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Builds {@link Delivery} values for unit tests. */
public final class Deliveries {

    private Deliveries() {
    }

    /** A delivery with the given body and header name/value pairs. */
    public static Delivery of(byte[] body, String... headerPairs) {
        Map<String, List<String>> h = new LinkedHashMap<>();
        for (int i = 0; i < headerPairs.length; i += 2) {
            h.put(headerPairs[i], List.of(headerPairs[i + 1]));
        }
        return new Delivery(body, h);
    }
}
