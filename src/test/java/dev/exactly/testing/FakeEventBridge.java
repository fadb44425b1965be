package dev.exactly.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A stand-in for the EventBridge PutEvents API on a loopback address, answering as the EventBridge
 * API reference documents it: the AWS JSON 1.1 protocol ({@code X-Amz-Target: AWSEvents.PutEvents},
 * {@code application/x-amz-json-1.1}), {@code {"Entries":[{"EventId"}],"FailedEntryCount":0}} on
 * success, and a partial failure as {@code FailedEntryCount} 1 with the entry's {@code ErrorCode}
 * and {@code ErrorMessage} under HTTP 200. It records every request (headers, with {@code :method}
 * and {@code :path}, and the JSON body) so a test can check what the AWS SDK's client sent. It does
 * not check signatures, nor is it EventBridge: no bus, no rule.
 */
public final class FakeEventBridge implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** One request the endpoint got: its headers (names in lower case) and its JSON body. */
    public record Received(Map<String, String> headers, JsonNode body) {

        /** The first value of a header, by its name in any letter case; null if absent. */
        public String h(String name) {
            return headers.get(name.toLowerCase());
        }

        /** The request's first entry. */
        public JsonNode entry() {
            return body.get("Entries").get(0);
        }

        /** The first entry's Detail, parsed; an AssertionError if it is not JSON. */
        public JsonNode detail() {
            try {
                return JSON.readTree(entry().get("Detail").asText());
            } catch (Exception e) {
                throw new AssertionError("Detail is not JSON: " + entry(), e);
            }
        }
    }

    /** A fault to answer one request with, before the normal success. */
    public enum Fault {
        /** HTTP 200 with the entry failed: {@code FailedEntryCount} 1, {@code ErrorCode} InternalFailure. */
        PARTIAL,
        /** HTTP 500 with {@code __type} InternalException. */
        HTTP_500
    }

    private final HttpServer server;
    private final ExecutorService threads;
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final ConcurrentLinkedQueue<Fault> faults = new ConcurrentLinkedQueue<>();

    /**
     * Starts the endpoint on an ephemeral port of {@code host}, answering one request at a time.
     *
     * @param host a loopback address, e.g. "127.0.0.2" (which the test profile's allowed hosts admit)
     * @throws IOException if it cannot bind
     */
    public FakeEventBridge(String host) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getByName(host), 0), 100);
        threads = Executors.newSingleThreadExecutor();
        server.createContext("/", ex -> {
            try (ex) {
                byte[] body = ex.getRequestBody().readAllBytes();
                Map<String, String> headers = new HashMap<>();
                ex.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(), v.get(0)));
                headers.put(":method", ex.getRequestMethod());
                headers.put(":path", ex.getRequestURI().getPath());
                received.add(new Received(headers, JSON.readTree(body)));
                Fault fault = faults.poll();
                int status = 200;
                String answer;
                if (fault == Fault.HTTP_500) {
                    status = 500;
                    answer = "{\"__type\":\"InternalException\",\"message\":\"try again\"}";
                } else if (fault == Fault.PARTIAL) {
                    answer = "{\"Entries\":[{\"ErrorCode\":\"InternalFailure\",\"ErrorMessage\":\"the bus could not take it now\"}],"
                            + "\"FailedEntryCount\":1}";
                } else {
                    answer = "{\"Entries\":[{\"EventId\":\"" + UUID.randomUUID() + "\"}],\"FailedEntryCount\":0}";
                }
                byte[] out = answer.getBytes(StandardCharsets.UTF_8);
                ex.getResponseHeaders().add("Content-Type", "application/x-amz-json-1.1");
                ex.getResponseHeaders().add("x-amzn-RequestId", UUID.randomUUID().toString());
                ex.sendResponseHeaders(status, out.length);
                ex.getResponseBody().write(out);
            }
        });
        server.setExecutor(threads);
        server.start();
    }

    /** The endpoint's URL: scheme, host and port, e.g. {@code http://127.0.0.2:40123}. */
    public String endpoint() {
        return "http://" + server.getAddress().getAddress().getHostAddress() + ":" + port();
    }

    /** The port it listens on. */
    public int port() {
        return server.getAddress().getPort();
    }

    /** Every request so far, in arrival order (a live view). */
    public List<Received> received() {
        return received;
    }

    /** Queues faults to answer the next requests with, in order, before the normal success. */
    public void fail(Fault... next) {
        faults.addAll(List.of(next));
    }

    /** Stops the endpoint at once, and its thread. */
    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
