package dev.exactly.lambda.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The GetSecretValue and PutSecretValue operations of AWS Secrets Manager on 127.0.0.1, over the
 * AWS JSON 1.1 protocol as the service's API reference documents them: {@code POST /} with
 * {@code X-Amz-Target: secretsmanager.GetSecretValue} (or {@code .PutSecretValue}),
 * {@code Content-Type: application/x-amz-json-1.1} and {@code {"SecretId": …}} (and
 * {@code "SecretString"}, {@code "ClientRequestToken"}); GetSecretValue answers ARN, Name,
 * SecretString, VersionId and VersionStages, PutSecretValue answers ARN, Name, VersionId and
 * VersionStages (the new version becomes AWSCURRENT). An unknown secret, or one that has no
 * value yet ({@link #putWithoutValue}, as a secret created without a version), answers 400
 * {@code ResourceNotFoundException} to GetSecretValue. Each request must be SigV4-signed (an
 * {@code AWS4-HMAC-SHA256} Authorization header); the test reads {@link #requests()} and
 * {@link #writes()} to see what was asked for. Not verified against AWS itself (no AWS here).
 */
public final class FakeSecretsManager implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    static {
        // the JDK's HTTP server writes a response's head and body apart; without TCP_NODELAY the
        // body waits for the client's delayed ACK of the head (some 40 ms on Linux) on every call
        System.setProperty("sun.net.httpserver.nodelay", "true");
    }

    private final HttpServer server;
    private final Map<String, String> secrets = new ConcurrentHashMap<>();
    private final Set<String> withoutValue = ConcurrentHashMap.newKeySet();
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private final List<String> writes = new CopyOnWriteArrayList<>();

    /** Starts on a free loopback port. */
    public FakeSecretsManager() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        server.createContext("/", this::handle);
        server.start();
    }

    /** The endpoint URL to configure (exactly.secrets.endpoint). */
    public String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** The port. */
    public int port() {
        return server.getAddress().getPort();
    }

    /**
     * Stores a secret.
     *
     * @param arn   its ARN (also found by its name, the ARN's last part)
     * @param value its SecretString
     */
    public void put(String arn, String value) {
        secrets.put(arn, value);
    }

    /**
     * Stores a secret that has no value yet (as CreateSecret without a SecretString makes it):
     * GetSecretValue answers ResourceNotFoundException until PutSecretValue gives it one.
     *
     * @param arn its ARN
     */
    public void putWithoutValue(String arn) {
        secrets.remove(arn);
        withoutValue.add(arn);
    }

    /** @return a secret's current value, or null */
    public String value(String arn) {
        return secrets.get(arn);
    }

    /** The SecretIds asked for (GetSecretValue), in order. */
    public List<String> requests() {
        return requests;
    }

    /** The SecretIds written (PutSecretValue), in order. */
    public List<String> writes() {
        return writes;
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            byte[] body = ex.getRequestBody().readAllBytes();
            String target = ex.getRequestHeaders().getFirst("X-Amz-Target");
            String auth = ex.getRequestHeaders().getFirst("Authorization");
            if (!"POST".equals(ex.getRequestMethod()) || target == null
                    || !Set.of("secretsmanager.GetSecretValue", "secretsmanager.PutSecretValue").contains(target)) {
                error(ex, 400, "UnknownOperationException", "only secretsmanager.GetSecretValue and PutSecretValue are served here");
                return;
            }
            if (auth == null || !auth.startsWith("AWS4-HMAC-SHA256 ")) {
                error(ex, 400, "IncompleteSignatureException", "the request is not signed with Signature Version 4");
                return;
            }
            JsonNode request = JSON.readTree(body);
            String id = request.path("SecretId").asText();
            String arn = find(id);
            if (target.endsWith("PutSecretValue")) {
                writes.add(id);
                if (arn == null || !request.path("SecretString").isTextual() || !request.path("ClientRequestToken").isTextual()) {
                    error(ex, 400, arn == null ? "ResourceNotFoundException" : "InvalidRequestException",
                            arn == null ? "Secrets Manager can't find the specified secret." : "SecretString and ClientRequestToken are required here");
                    return;
                }
                secrets.put(arn, request.path("SecretString").asText());
                withoutValue.remove(arn);
                ObjectNode answer = JSON.createObjectNode()
                        .put("ARN", arn)
                        .put("Name", arn.substring(arn.lastIndexOf(':') + 1))
                        .put("VersionId", request.path("ClientRequestToken").asText());
                answer.putArray("VersionStages").add("AWSCURRENT");
                send(ex, 200, JSON.writeValueAsBytes(answer));
                return;
            }
            requests.add(id);
            if (arn == null) {
                error(ex, 400, "ResourceNotFoundException", "Secrets Manager can't find the specified secret.");
                return;
            }
            if (!secrets.containsKey(arn)) {
                error(ex, 400, "ResourceNotFoundException",
                        "Secrets Manager can't find the specified secret value for staging label: AWSCURRENT");
                return;
            }
            ObjectNode answer = JSON.createObjectNode()
                    .put("ARN", arn)
                    .put("Name", arn.substring(arn.lastIndexOf(':') + 1))
                    .put("SecretString", secrets.get(arn))
                    .put("VersionId", "00000000-0000-4000-8000-000000000001")
                    .put("CreatedDate", 1.7672256E9);
            answer.putArray("VersionStages").add("AWSCURRENT");
            send(ex, 200, JSON.writeValueAsBytes(answer));
        }
    }

    /** The ARN of a secret given by ARN or name, or null. */
    private String find(String id) {
        if (secrets.containsKey(id) || withoutValue.contains(id)) {
            return id;
        }
        return java.util.stream.Stream.concat(secrets.keySet().stream(), withoutValue.stream())
                .filter(a -> a.endsWith(":secret:" + id)).findFirst().orElse(null);
    }

    private static void error(HttpExchange ex, int status, String type, String message) throws IOException {
        ObjectNode e = JSON.createObjectNode().put("__type", type).put("message", message);
        send(ex, status, JSON.writeValueAsBytes(e));
    }

    private static void send(HttpExchange ex, int status, byte[] body) throws IOException {
        ex.getResponseHeaders().add("Content-Type", "application/x-amz-json-1.1");
        ex.getResponseHeaders().add("x-amzn-RequestId", java.util.UUID.randomUUID().toString());
        ex.sendResponseHeaders(status, body.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(body);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }

    static String utf8(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
