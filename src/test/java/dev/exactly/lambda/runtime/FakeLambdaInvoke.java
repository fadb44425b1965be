package dev.exactly.lambda.runtime;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;

/**
 * The Lambda Invoke API as AWS documents it (API version 2015-03-31: {@code POST
 * /2015-03-31/functions/{FunctionName}/invocations}, the invocation type in
 * {@code X-Amz-Invocation-Type}; an asynchronous one, {@code Event}, is answered 202 with an empty
 * body once queued), served on 127.0.0.1. It records each call and hands an Event invocation's
 * payload to a consumer (the test passes it on to the function under the runtime interface client,
 * as Lambda would run it). Other invocation types are answered 400: the function under test makes none.
 */
public final class FakeLambdaInvoke implements AutoCloseable {

    /** One Invoke call as received. */
    public record Call(String functionName, String invocationType, String payload, boolean signed) {
    }

    private static final String PREFIX = "/2015-03-31/functions/";

    private final HttpServer server;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "fake-lambda-invoke");
        t.setDaemon(true);
        return t;
    });
    private final List<Call> calls = new CopyOnWriteArrayList<>();
    private final Consumer<byte[]> events;

    /**
     * Starts on a free loopback port.
     *
     * @param events receives each Event invocation's payload, on a thread of its own, after the 202
     */
    public FakeLambdaInvoke(Consumer<byte[]> events) throws IOException {
        this.events = events;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        server.setExecutor(threads);
        server.createContext(PREFIX, this::handle);
        server.start();
    }

    /** The endpoint URL to give the function (exactly.invoke.endpoint). */
    public String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** The calls received so far, in order. */
    public List<Call> calls() {
        return List.copyOf(calls);
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String path = ex.getRequestURI().getRawPath();
            byte[] body = ex.getRequestBody().readAllBytes();
            if (!ex.getRequestMethod().equals("POST") || !path.endsWith("/invocations")) {
                ex.sendResponseHeaders(404, -1);
                return;
            }
            String name = URLDecoder.decode(path.substring(PREFIX.length(), path.length() - "/invocations".length()),
                    StandardCharsets.UTF_8);
            String type = ex.getRequestHeaders().getFirst("X-Amz-Invocation-Type");
            String auth = ex.getRequestHeaders().getFirst("Authorization");
            calls.add(new Call(name, type, new String(body, StandardCharsets.UTF_8), auth != null && auth.startsWith("AWS4-HMAC-SHA256 ")));
            if (!"Event".equals(type)) {
                byte[] b = "{\"message\":\"only Event invocations are served here\"}".getBytes(StandardCharsets.UTF_8);
                ex.getResponseHeaders().add("Content-Type", "application/json");
                ex.sendResponseHeaders(400, b.length);
                ex.getResponseBody().write(b);
                return;
            }
            ex.getResponseHeaders().add("x-amzn-RequestId", java.util.UUID.randomUUID().toString());
            ex.sendResponseHeaders(202, -1);
            threads.execute(() -> events.accept(body));
        }
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
