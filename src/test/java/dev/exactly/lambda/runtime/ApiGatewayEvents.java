package dev.exactly.lambda.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * API Gateway HTTP API (payload format 2.0) events built on AWS's published sample event
 * ({@code ../shared/aws/apigw-v2-request-no-authorizer.json} when present, else the copy in
 * src/test/resources/aws): method, raw path and query string, headers (lower-case names, as HTTP
 * APIs send them; a header sent several times is one comma-joined value), cookies, and a body
 * plain or base64-encoded; content-length, requestId and time are set as API Gateway would.
 */
public final class ApiGatewayEvents {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss Z", Locale.ROOT);
    private static final AtomicLong SEQUENCE = new AtomicLong();
    private static final Path SHARED = Path.of("..", "shared", "aws", "apigw-v2-request-no-authorizer.json");
    private static final ObjectNode SAMPLE = load();

    private final ObjectNode event = SAMPLE.deepCopy();
    private final Map<String, String> headers = new LinkedHashMap<>();
    private byte[] body;
    private boolean base64;

    private ApiGatewayEvents(String method, String pathAndQuery) {
        int q = pathAndQuery.indexOf('?');
        String path = q < 0 ? pathAndQuery : pathAndQuery.substring(0, q);
        event.put("rawPath", path);
        event.put("rawQueryString", q < 0 ? "" : pathAndQuery.substring(q + 1));
        ObjectNode http = (ObjectNode) event.path("requestContext").path("http");
        http.put("method", method);
        http.put("path", path);
        event.path("headers").fields().forEachRemaining(h -> headers.put(h.getKey(), h.getValue().asText()));
        headers.remove("content-length");
    }

    /** An event for {@code method} on {@code pathAndQuery} (e.g. "/api/v1/tasks/x?queue=a"). */
    public static ApiGatewayEvents request(String method, String pathAndQuery) {
        return new ApiGatewayEvents(method, pathAndQuery);
    }

    /** Sets a header (the name is lower-cased, as HTTP APIs do). */
    public ApiGatewayEvents header(String name, String value) {
        headers.put(name.toLowerCase(Locale.ROOT), value);
        return this;
    }

    /** The v2 cookies array. */
    public ApiGatewayEvents cookies(List<String> cookies) {
        event.putArray("cookies").addAll(cookies.stream().map(JSON.getNodeFactory()::textNode).toList());
        return this;
    }

    /**
     * The requestContext.authorizer of an event that an API Gateway authorizer let through, e.g.
     * {"jwt":{"claims":{...},"scopes":[]}}, {"iam":{"userId":...}} or {"lambda":{"principalId":...}}.
     */
    public ApiGatewayEvents authorizer(Map<String, Object> authorizer) {
        ((ObjectNode) event.path("requestContext")).set("authorizer", JSON.valueToTree(authorizer));
        return this;
    }

    /** A JSON body, sent as text. */
    public ApiGatewayEvents json(String json) {
        return body(json.getBytes(StandardCharsets.UTF_8), false).header("content-type", "application/json");
    }

    /** A body, base64-encoded or as UTF-8 text. */
    public ApiGatewayEvents body(byte[] bytes, boolean asBase64) {
        this.body = bytes;
        this.base64 = asBase64;
        return this;
    }

    /** The event JSON. */
    public byte[] build() {
        ObjectNode h = event.putObject("headers");
        headers.forEach(h::put);
        if (body != null) {
            h.put("content-length", Integer.toString(body.length));
            event.put("body", base64 ? Base64.getEncoder().encodeToString(body) : new String(body, StandardCharsets.UTF_8));
        } else {
            event.remove("body");
        }
        event.put("isBase64Encoded", base64);
        ObjectNode context = (ObjectNode) event.path("requestContext");
        context.put("requestId", "req-" + SEQUENCE.incrementAndGet() + "=");
        ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
        context.put("time", TIME.format(now));
        context.put("timeEpoch", now.toInstant().toEpochMilli());
        try {
            return JSON.writeValueAsBytes(event);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Where the sample came from (for messages). */
    public static String sampleSource() {
        return Files.isRegularFile(SHARED) ? SHARED.toString() : "src/test/resources/aws (copy)";
    }

    private static ObjectNode load() {
        try {
            JsonNode tree;
            if (Files.isRegularFile(SHARED)) {
                tree = JSON.readTree(SHARED.toFile());
            } else {
                try (InputStream in = ApiGatewayEvents.class.getResourceAsStream("/aws/apigw-v2-request-no-authorizer.json")) {
                    if (in == null) {
                        throw new IllegalStateException("AWS's sample event is missing from src/test/resources/aws");
                    }
                    tree = JSON.readTree(in);
                }
            }
            return (ObjectNode) tree;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
