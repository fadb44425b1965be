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
                out.write(requestLine.contains("/empty") || requestLine.contains("/reset") ? empty : hundred);
                out.flush();
                if (requestLine.contains("/reset")) {
                    // answered; then the idle kept-alive connection is reset (RST), as a receiver that restarts does
                    Thread.sleep(200);
                    s.setSoLinger(true, 0);
                    return;
                }
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
     * A connection idle in the pool for longer than {@link HttpSender#IDLE_SECONDS} is not lent
     * again: the next attempt opens another, rather than going out on a connection that a receiver
     * with a 5 s idle timeout (Node.js' default) may be closing at that moment. Within that time the
     * connection is used again.
     */
    @Test
    void aConnectionIdleLongerThanTheIdleTimeIsNotUsedAgain() throws Exception {
        Destination empty = destination("/empty");
        for (int i = 0; i < 2; i++) {
            Sender.Result r = sender.send(empty, new Sender.Outgoing("m-" + i, "q", "p", i, "t-" + i, "application/json",
                    "{}".getBytes(StandardCharsets.UTF_8)), 1);
            assertTrue(r.delivered(), r.error());
            Thread.sleep(1000);
        }
        assertEquals(1, connections.get(), "used again within the idle time");
        Thread.sleep((HttpSender.IDLE_SECONDS + 1) * 1000L);
        Sender.Result late = sender.send(empty, new Sender.Outgoing("m-late", "q", "p", 2, "t-late", "application/json",
                "{}".getBytes(StandardCharsets.UTF_8)), 1);
        assertTrue(late.delivered(), late.error());
        assertEquals(2, connections.get(), "after the idle time the attempt opened another connection");
    }

    /**
     * A kept-alive connection the receiver resets while it is idle in the pool (a receiver that
     * restarts) is not logged as an ERROR that names no destination (Vert.x logs an exception of a
     * connection with no exception handler so): it is logged at DEBUG with the destination's name
     * and the receiver's address, and the next attempt opens another connection.
     */
    @Test
    void anIdleConnectionResetByTheReceiverIsNoError() throws Exception {
        List<java.util.logging.LogRecord> records = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Handler capture = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                records.add(r);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        java.util.logging.Logger vertxConnections = java.util.logging.Logger.getLogger("io.vertx.core.net.impl.ConnectionBase");
        java.util.logging.Logger senders = java.util.logging.Logger.getLogger(HttpSender.class.getName());
        java.util.logging.Level was = senders.getLevel();
        vertxConnections.addHandler(capture);
        senders.addHandler(capture);
        senders.setLevel(java.util.logging.Level.ALL);
        try {
            Destination reset = destination("/reset");
            Sender.Result r = sender.send(reset, new Sender.Outgoing("m-1", "q", "p", 0, "t-1", "application/json",
                    "{}".getBytes(StandardCharsets.UTF_8)), 1);
            assertTrue(r.delivered(), r.error());
            long end = System.nanoTime() + 5_000_000_000L;
            while (records.isEmpty() && System.nanoTime() < end) {
                Thread.sleep(20);
            }
            Thread.sleep(200);
            records.forEach(x -> System.out.println("logged: " + x.getLevel() + " [" + x.getLoggerName() + "] " + x.getMessage()
                    + (x.getParameters() == null ? "" : " " + java.util.Arrays.toString(x.getParameters()))));
            assertEquals(List.of(), records.stream().filter(x -> x.getLevel().intValue() >= java.util.logging.Level.WARNING.intValue())
                    .map(x -> x.getLoggerName() + ": " + x.getMessage()).toList(), "no WARN or ERROR for an idle connection reset");
            assertTrue(records.stream().anyMatch(x -> x.getLoggerName().equals(HttpSender.class.getName())
                    && String.valueOf(formatted(x)).contains("destination d")), "a DEBUG line names the destination");
            Sender.Result again = sender.send(reset, new Sender.Outgoing("m-2", "q", "p", 1, "t-2", "application/json",
                    "{}".getBytes(StandardCharsets.UTF_8)), 1);
            assertTrue(again.delivered(), again.error());
            assertEquals(2, connections.get(), "the next attempt opened another connection");
        } finally {
            vertxConnections.removeHandler(capture);
            senders.removeHandler(capture);
            senders.setLevel(was);
        }
    }

    private static String formatted(java.util.logging.LogRecord r) {
        return new java.util.logging.SimpleFormatter().formatMessage(r);
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
