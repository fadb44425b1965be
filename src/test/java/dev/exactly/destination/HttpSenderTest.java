package dev.exactly.destination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The http sender's exchange with a real receiver on loopback (no database is involved: one
 * attempt is one HTTP exchange). The answer's status decides the attempt whatever its body and
 * however quickly the body ends; the body is dropped, and a short one leaves the connection to
 * be used again.
 */
class HttpSenderTest {

    private Vertx vertx;
    private java.net.ServerSocket server;
    private final ExecutorService receiver = Executors.newCachedThreadPool();
    private HttpSender sender;
    /** Connections Exactly opened to the receiver. */
    private final AtomicInteger connections = new AtomicInteger();

    /**
     * A keep-alive HTTP/1.1 receiver on a plain socket that writes each answer, status line,
     * headers and body, in one write, so the whole answer usually arrives in one read: on
     * {@code /empty} a 200 with {@code Content-Length: 0}, elsewhere a 200 with a 100-byte body
     * ({@code /slow}: after a second).
     */
    @BeforeEach
    void start() throws Exception {
        vertx = Vertx.vertx();
        server = new java.net.ServerSocket(0, 100, java.net.InetAddress.getByName("127.0.0.1"));
        byte[] empty = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        byte[] hundred = ("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + "x".repeat(100)).getBytes(StandardCharsets.US_ASCII);
        receiver.submit(() -> {
            while (!server.isClosed()) {
                java.net.Socket s;
                try {
                    s = server.accept();
                } catch (java.io.IOException closed) {
                    return;
                }
                connections.incrementAndGet();
                receiver.submit(() -> answer(s, empty, hundred));
            }
        });
        sender = new HttpSender(vertx, new AddressGuard(List.of("127.0.0.1/32")), 8);
    }

    /** Reads requests off one connection (headers, then Content-Length bytes) and answers each. */
    private static void answer(java.net.Socket s, byte[] empty, byte[] hundred) {
        try (s; java.io.BufferedInputStream in = new java.io.BufferedInputStream(s.getInputStream());
             java.io.OutputStream out = s.getOutputStream()) {
            s.setTcpNoDelay(true);
            while (true) {
                String requestLine = line(in);
                if (requestLine == null) {
                    return;
                }
                int length = 0;
                for (String h = line(in); h != null && !h.isEmpty(); h = line(in)) {
                    if (h.regionMatches(true, 0, "content-length:", 0, 15)) {
                        length = Integer.parseInt(h.substring(15).trim());
                    }
                }
                in.readNBytes(length);
                if (requestLine.contains("/slow")) {
                    Thread.sleep(1000);
                }
                out.write(requestLine.contains("/empty") ? empty : hundred);
                out.flush();
            }
        } catch (java.io.IOException e) {
            // the client closed the connection
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String line(java.io.InputStream in) throws java.io.IOException {
        StringBuilder b = new StringBuilder();
        for (int c = in.read(); c != -1; c = in.read()) {
            if (c == '\n') {
                return b.toString().strip();
            }
            b.append((char) c);
        }
        return b.length() == 0 ? null : b.toString();
    }

    @AfterEach
    void stop() throws Exception {
        sender.close();
        server.close();
        receiver.shutdownNow();
        vertx.close().toCompletionStage().toCompletableFuture().get();
    }

    private Destination destination(String path) {
        return new Destination("d", "q", "http", URI.create("http://127.0.0.1:" + server.getLocalPort() + path),
                null, 5000, 3, 10, 100, false);
    }

    /**
     * A response that has ended by the time its body is to be dropped (its headers' future may be
     * completed on the sending thread while the event loop reads the rest) is left as it is: the
     * drop throws nothing, so the attempt is the answer's status. (It threw "Response already
     * ended", and such a 200 counted as a failed attempt: the receiver got the message again.)
     */
    @Test
    void aResponseThatHasAlreadyEndedIsNotAFailure() throws Exception {
        io.vertx.core.http.HttpClient client = vertx.createHttpClient();
        try {
            io.vertx.core.http.HttpClientRequest req = client.request(io.vertx.core.http.HttpMethod.POST, server.getLocalPort(),
                    "127.0.0.1", "/hundred").toCompletionStage().toCompletableFuture().get();
            io.vertx.core.http.HttpClientResponse resp = req.send("{}").toCompletionStage().toCompletableFuture().get();
            resp.end().toCompletionStage().toCompletableFuture().get();
            sender.dropBody(resp, req, 1000);
            assertEquals(200, resp.statusCode());
        } finally {
            client.close();
        }
    }

    /**
     * Giving up on a request whose response has ended leaves its connection alone: by then the
     * pool may have lent it to another request, which must not fail. (The client's reset closes a
     * request's connection even after its response ended; the sender reset unconditionally on a
     * timeout, and could close the connection under another message's attempt.)
     */
    @Test
    void givingUpOnAnEndedRequestDoesNotCloseTheConnectionAnotherUses() throws Exception {
        io.vertx.core.http.HttpClient client = vertx.createHttpClient(new io.vertx.core.http.HttpClientOptions().setMaxPoolSize(1));
        try {
            io.vertx.core.http.HttpClientRequest a = client.request(io.vertx.core.http.HttpMethod.POST, server.getLocalPort(),
                    "127.0.0.1", "/hundred").toCompletionStage().toCompletableFuture().get();
            a.send("{}").compose(r -> r.end()).toCompletionStage().toCompletableFuture().get();
            // the one connection, lent again: b is in flight on it for a second
            java.util.concurrent.CompletableFuture<Integer> b = client.request(io.vertx.core.http.HttpMethod.POST,
                    server.getLocalPort(), "127.0.0.1", "/slow")
                    .compose(req -> req.send("{}")).compose(r -> r.end().map(r.statusCode()))
                    .toCompletionStage().toCompletableFuture();
            Thread.sleep(200);
            assertEquals(1, connections.get());
            sender.abandon(a);
            assertEquals(200, b.get(5, java.util.concurrent.TimeUnit.SECONDS));
            assertEquals(1, connections.get());
        } finally {
            client.close();
        }
    }

    /**
     * Thousands of quick 200 answers with a short body, 32 senders at once over 8 connections: every one is a
     * delivery (an answer that had already ended when its body was to be dropped was counted as a
     * failed attempt), and the connections are used again rather than one opened per message.
     */
    @Test
    void everyQuickTwoHundredIsADeliveryAndConnectionsAreReused() throws Exception {
        Destination empty = destination("/empty");
        Destination hundred = destination("/hundred");
        int threads = 32;
        int perThread = 500;
        AtomicInteger delivered = new AtomicInteger();
        Map<String, Integer> failures = new ConcurrentHashMap<>();
        ExecutorService workers = Executors.newFixedThreadPool(threads);
        List<Future<?>> done = new java.util.ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            done.add(workers.submit(() -> {
                for (int i = 0; i < perThread; i++) {
                    Sender.Result r = sender.send(i % 2 == 0 ? empty : hundred, new Sender.Outgoing(java.util.UUID.randomUUID().toString(), "q", "p" + thread,
                            i, "t-" + thread + "-" + i, "application/json", "{}".getBytes(StandardCharsets.UTF_8)), 1);
                    if (r.delivered()) {
                        delivered.incrementAndGet();
                    } else {
                        failures.merge(r.status() + " " + r.error(), 1, Integer::sum);
                    }
                }
            }));
        }
        for (Future<?> f : done) {
            f.get();
        }
        workers.shutdown();
        assertEquals(Map.of(), failures);
        assertEquals(threads * perThread, delivered.get());
        // the senders share a pool of 8 connections; a body read to its end returns its connection
        assertTrue(connections.get() <= 16, "connections opened for " + threads * perThread + " messages: " + connections.get());
    }
}
