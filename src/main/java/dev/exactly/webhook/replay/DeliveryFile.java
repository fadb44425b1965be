package dev.exactly.webhook.replay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a JSONL file of recorded deliveries: one JSON object per line with {@code headers} (an
 * object of string values) and {@code body} (the exact body as a string, posted as its UTF-8
 * bytes); other members (source, file, tampered, ...) are ignored. Blank lines are skipped.
 * The format of ../shared/corpus/github-deliveries.jsonl.
 */
public final class DeliveryFile {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private DeliveryFile() {
    }

    /**
     * @param file the JSONL file (UTF-8)
     * @return its deliveries, in file order
     * @throws IOException when it cannot be read, or a line is not a delivery (naming the line)
     */
    public static List<RecordedDelivery> read(Path file) throws IOException {
        List<RecordedDelivery> out = new ArrayList<>();
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String text;
            int line = 0;
            while ((text = r.readLine()) != null) {
                line++;
                if (!text.isBlank()) {
                    out.add(parse(text, line));
                }
            }
        }
        return out;
    }

    private static RecordedDelivery parse(String text, int line) throws IOException {
        JsonNode n;
        try {
            n = MAPPER.readTree(text);
        } catch (IOException e) {
            throw new IOException("line " + line + ": not JSON: " + e.getMessage(), e);
        }
        JsonNode headers = n.path("headers");
        JsonNode body = n.path("body");
        if (!headers.isObject() || !body.isTextual()) {
            throw new IOException("line " + line + ": needs \"headers\" (an object) and \"body\" (a string)");
        }
        Map<String, String> h = new LinkedHashMap<>();
        var fields = headers.fields();
        while (fields.hasNext()) {
            var f = fields.next();
            if (!f.getValue().isTextual()) {
                throw new IOException("line " + line + ": header " + f.getKey() + " must be a string");
            }
            h.put(f.getKey(), f.getValue().textValue());
        }
        return new RecordedDelivery(line, h, body.textValue().getBytes(StandardCharsets.UTF_8));
    }
}
