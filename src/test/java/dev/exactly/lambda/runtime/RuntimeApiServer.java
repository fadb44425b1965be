package dev.exactly.lambda.runtime;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The AWS Lambda Runtime API (version 2018-06-01, as AWS documents it in "Using the Lambda runtime
 * API for custom runtimes" and, for SnapStart, "/runtime/restore/next"), served on 127.0.0.1 for
 * one function process:
 * <ul>
 * <li>{@code GET /2018-06-01/runtime/invocation/next}: waits for the next event the test
 * {@linkplain #invoke invokes} and answers it with the Lambda-Runtime-Aws-Request-Id,
 * -Deadline-Ms, -Invoked-Function-Arn and -Trace-Id headers;</li>
 * <li>{@code POST …/invocation/{id}/response} and {@code …/{id}/error}: complete that invocation;</li>
 * <li>{@code POST /2018-06-01/runtime/init/error}: the initialisation failed;</li>
 * <li>{@code GET /2018-06-01/runtime/restore/next}: the runtime is ready for a SnapStart snapshot;
 * the {@linkplain #onSnapshot snapshot callback} runs (the process is as it would be frozen), then
 * the answer resumes it; {@code POST …/restore/error}: the after-restore hooks failed.</li>
 * </ul>
 * Accepted posts answer 202, as the real API does.
 */
public final class RuntimeApiServer implements AutoCloseable {

    private final List<String> handedOut = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** What the function answered for one invocation: its response, or its error report. */
    public record Outcome(String response, String error, String errorType) {
    }

    /** An init or restore error the runtime reported. */
    public record ReportedError(String path, String body, String errorType) {
    }

    private record Invocation(String id, byte[] event, CompletableFuture<Outcome> outcome) {
    }

    private static final String BASE = "/2018-06-01/runtime";
    private static final String ARN = "arn:aws:lambda:eu-west-1:123456789012:function:exactly:live";

    static {
        // the JDK's HTTP server writes a response's head and body apart; without TCP_NODELAY the
        // body waits for the client's delayed ACK of the head (some 40 ms on Linux) on every call
        System.setProperty("sun.net.httpserver.nodelay", "true");
    }

    private final HttpServer server;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "runtime-api");
        t.setDaemon(true);
        return t;
    });
    private final BlockingQueue<Invocation> pending = new LinkedBlockingQueue<>();
    private final Map<String, Invocation> running = new ConcurrentHashMap<>();
    private final CompletableFuture<ReportedError> initError = new CompletableFuture<>();
    private final CompletableFuture<Void> restored = new CompletableFuture<>();
    private volatile Runnable onSnapshot = () -> { };
    private volatile long firstNextNanos;
    private volatile long timeoutMillis = 30_000;

    /** Starts the server on a free loopback port. */
    public RuntimeApiServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        server.setExecutor(threads);
        server.createContext(BASE + "/", this::handle);
        server.start();
    }

    /** The value of AWS_LAMBDA_RUNTIME_API for the function process: host:port. */
    public String address() {
        return "127.0.0.1:" + server.getAddress().getPort();
    }

    /** The port. */
    public int port() {
        return server.getAddress().getPort();
    }

    /** The function's timeout: each invocation's deadline (Lambda-Runtime-Deadline-Ms) is this many milliseconds after it is handed out; 30000 unless set. */
    public void timeoutMillis(long millis) {
        this.timeoutMillis = millis;
    }

    /** Runs {@code check} when the runtime asks for /restore/next, before answering it. */
    public void onSnapshot(Runnable check) {
        this.onSnapshot = check;
    }

    /** Completes when /restore/next was answered. */
    public CompletableFuture<Void> restored() {
        return restored;
    }

    /** Completes with the first /runtime/init/error or /runtime/restore/error report. */
    public CompletableFuture<ReportedError> initError() {
        return initError;
    }

    /** The request ids handed to the function so far (Lambda-Runtime-Aws-Request-Id), in order. */
    public List<String> requestIds() {
        return List.copyOf(handedOut);
    }

    /** System.nanoTime() of the first /invocation/next (the function finished initialising), 0 before. */
    public long firstNextNanos() {
        return firstNextNanos;
    }

    /**
     * Hands an event to the function and waits for its answer.
     *
     * @param event   the event JSON
     * @param timeout how long to wait
     * @return the outcome
     * @throws TimeoutException when the function does not answer in time (or reported an init error)
     */
    public Outcome invoke(byte[] event, Duration timeout) throws Exception {
        Invocation inv = new Invocation(UUID.randomUUID().toString(), event, new CompletableFuture<>());
        pending.add(inv);
        CompletableFuture<Object> either = CompletableFuture.anyOf(inv.outcome(), initError);
        Object done = either.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (done instanceof ReportedError e) {
            throw new IllegalStateException("the function reported " + e.path() + ": " + e.body());
        }
        return (Outcome) done;
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String path = ex.getRequestURI().getPath();
            String method = ex.getRequestMethod();
            byte[] body = ex.getRequestBody().readAllBytes();
            String errorType = ex.getRequestHeaders().getFirst("Lambda-Runtime-Function-Error-Type");
            if (method.equals("GET") && path.equals(BASE + "/invocation/next")) {
                next(ex);
            } else if (method.equals("POST") && path.startsWith(BASE + "/invocation/") && path.endsWith("/response")) {
                complete(ex, path, new Outcome(new String(body, StandardCharsets.UTF_8), null, null));
            } else if (method.equals("POST") && path.startsWith(BASE + "/invocation/") && path.endsWith("/error")) {
                complete(ex, path, new Outcome(null, new String(body, StandardCharsets.UTF_8), errorType));
            } else if (method.equals("POST") && (path.equals(BASE + "/init/error") || path.equals(BASE + "/restore/error"))) {
                initError.complete(new ReportedError(path, new String(body, StandardCharsets.UTF_8), errorType));
                send(ex, 202, "{\"status\":\"OK\"}");
            } else if (method.equals("GET") && path.equals(BASE + "/restore/next")) {
                onSnapshot.run();
                send(ex, 200, "");
                restored.complete(null);
            } else {
                send(ex, 404, "{\"errorMessage\":\"unknown path " + path + "\"}");
            }
        }
    }

    private void next(HttpExchange ex) throws IOException {
        if (firstNextNanos == 0) {
            firstNextNanos = System.nanoTime();
        }
        Invocation inv;
        try {
            inv = pending.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        running.put(inv.id(), inv);
        handedOut.add(inv.id());
        ex.getResponseHeaders().add("Content-Type", "application/json");
        ex.getResponseHeaders().add("Lambda-Runtime-Aws-Request-Id", inv.id());
        ex.getResponseHeaders().add("Lambda-Runtime-Deadline-Ms", Long.toString(System.currentTimeMillis() + timeoutMillis));
        ex.getResponseHeaders().add("Lambda-Runtime-Invoked-Function-Arn", ARN);
        ex.getResponseHeaders().add("Lambda-Runtime-Trace-Id",
                "Root=1-" + Long.toHexString(System.currentTimeMillis() / 1000) + "-" + inv.id().replace("-", "").substring(0, 24)
                        + ";Parent=" + inv.id().replace("-", "").substring(0, 16) + ";Sampled=0");
        ex.sendResponseHeaders(200, inv.event().length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(inv.event());
        }
    }

    private void complete(HttpExchange ex, String path, Outcome outcome) throws IOException {
        String id = path.substring((BASE + "/invocation/").length(), path.lastIndexOf('/'));
        Invocation inv = running.remove(id);
        if (inv == null) {
            send(ex, 400, "{\"errorMessage\":\"unknown request id\"}");
            return;
        }
        send(ex, 202, "{\"status\":\"OK\"}");
        inv.outcome().complete(outcome);
    }

    private static void send(HttpExchange ex, int status, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("Content-Type", "application/json");
        ex.sendResponseHeaders(status, b.length == 0 ? -1 : b.length);
        if (b.length > 0) {
            try (OutputStream out = ex.getResponseBody()) {
                out.write(b);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
