package dev.exactly.destination;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.impl.VertxInternal;
import io.vertx.core.net.SocketAddress;
import java.net.InetAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.jboss.logging.Logger;

/**
 * Sends one message to an http destination: a POST of the stored payload bytes, unchanged, to the
 * destination's URL, with Standard Webhooks headers ({@code webhook-id} the messageId,
 * {@code webhook-timestamp}, and {@code webhook-signature} when the destination has a secret) and
 * the message's place ({@code Exactly-Queue}, {@code Exactly-Partition}, {@code Exactly-Offset},
 * {@code Exactly-Transaction-Id} percent-encoded UTF-8, {@code Exactly-Attempt}). The host is
 * resolved and checked by {@link AddressGuard} for every attempt, and the connection goes to the
 * address checked (the URL's host still names the request's Host header and TLS server name).
 * Redirects are not followed; no credential of Exactly's is sent. The answer is its status: the
 * attempt's outcome is decided when the status line and headers arrive, and the response body is
 * read and dropped, at most {@link #MAX_RESPONSE_BODY_BYTES} of it and for at most timeoutMs, after
 * which the connection is closed instead, so a receiver's body can neither fill Exactly's memory
 * nor hold an attempt that it has already answered. Every request, its connection, its timer and
 * any reset run on one event-loop context of the sender's own: the client resets a request's
 * connection even when the request's response has ended and the pool has lent the connection to
 * another request, so a reset is only ever made on the connection's own thread, after checking
 * that the response has not ended. Blocking: called on a delivery worker thread, never on an
 * event loop.
 */
final class HttpSender implements Sender {

    private static final Logger LOG = Logger.getLogger(HttpSender.class);

    /**
     * Seconds a kept-alive connection may stay idle in a destination's pool before it is no longer
     * lent: shorter than the idle timeouts receivers commonly close connections at (Node.js'
     * default is 5 s), so an attempt does not go out on a connection the receiver is closing, which
     * would fail it and cost a backoff although the receiver was up.
     */
    static final int IDLE_SECONDS = 4;

    /** The most of a response body read (and dropped) before its connection is closed, in bytes. */
    static final int MAX_RESPONSE_BODY_BYTES = 64 * 1024;

    private final Vertx vertx;
    /** The context every request of this sender is made on, and so its connections' and timers'. */
    private final Context context;
    /**
     * A client, so a connection pool, per destination (by name): the pool's limit is per server
     * (host and port), so with one client for all, a destination whose receiver is slow would hold
     * every connection to its server, and another destination of the same server would wait for one.
     */
    private final java.util.concurrent.ConcurrentHashMap<String, HttpClient> clients = new java.util.concurrent.ConcurrentHashMap<>();
    private final int connections;
    private final AddressGuard guard;

    /**
     * @param connections the most connections a destination holds to its server at once
     */
    HttpSender(Vertx vertx, AddressGuard guard, int connections) {
        this.vertx = vertx;
        // a context of its own (not the caller's, which may be a request's): internal API, as the
        // public getOrCreateContext() returns the caller's context on a Vert.x thread
        this.context = ((VertxInternal) vertx).createEventLoopContext();
        this.guard = guard;
        this.connections = connections;
    }

    /**
     * The destination's client. Each connection it opens gets an exception handler: without one,
     * Vert.x logs a connection's exception (such as a kept-alive connection idle in the pool that
     * the receiver resets as it restarts) as an ERROR naming neither the destination nor the
     * receiver. Here it is logged at DEBUG with both: a request in flight on that connection fails
     * with the same exception as its attempt's error (counted, retried, in lastError), and an idle
     * one leaves the pool, so the next attempt opens another.
     */
    private HttpClient client(String destination) {
        return clients.computeIfAbsent(destination, name -> {
            HttpClientOptions options = new HttpClientOptions()
                    .setMaxPoolSize(connections)
                    .setKeepAlive(true)
                    .setKeepAliveTimeout(IDLE_SECONDS)
                    .setVerifyHost(true)
                    .setForceSni(true) // the URL's host names the TLS server, although the connection goes to a checked address
                    .setTryUseCompression(false);
            return vertx.httpClientBuilder()
                    .with(options)
                    // the pool's size as the options set it: the builder's own default pool holds 5 connections
                    .with(options.getPoolOptions())
                    .withConnectHandler(connection -> connection.exceptionHandler(e -> LOG.debugf(
                            "destination %s: connection to %s ended: %s", name, connection.remoteAddress(), e.toString())))
                    .build();
        });
    }

    @Override
    public void forget(String destination) {
        HttpClient c = clients.remove(destination);
        if (c != null) {
            c.close();
        }
    }

    @Override
    public Result send(Destination d, Outgoing m, int attempt) {
        HttpClient client = client(d.name());
        URI u = d.url();
        boolean tls = "https".equalsIgnoreCase(u.getScheme());
        int port = u.getPort() >= 0 ? u.getPort() : (tls ? 443 : 80);
        String host = u.getHost().startsWith("[") ? u.getHost().substring(1, u.getHost().length() - 1) : u.getHost();
        InetAddress address;
        try {
            address = guard.resolve(host);
        } catch (AddressGuard.RefusedAddressException e) {
            return new Result(false, 0, null, e.getMessage());
        }
        String path = u.getRawPath() == null || u.getRawPath().isEmpty() ? "/" : u.getRawPath();
        if (u.getRawQuery() != null) {
            path += "?" + u.getRawQuery();
        }
        long now = Instant.now().getEpochSecond();
        RequestOptions o = new RequestOptions()
                .setMethod(HttpMethod.POST)
                .setHost(host)
                .setPort(port)
                .setSsl(tls)
                .setURI(path)
                .setServer(SocketAddress.inetSocketAddress(port, address.getHostAddress()))
                .setFollowRedirects(false)
                .setConnectTimeout(d.timeoutMs()) // the whole exchange is bounded below, by timeoutMs from the send
                .putHeader("Content-Type", m.contentType() == null ? "application/json" : m.contentType())
                .putHeader("User-Agent", "Exactly")
                .putHeader("webhook-id", m.messageId())
                .putHeader("webhook-timestamp", Long.toString(now))
                .putHeader("Exactly-Queue", m.queue())
                .putHeader("Exactly-Partition", m.partition())
                .putHeader("Exactly-Offset", Long.toString(m.offset()))
                .putHeader("Exactly-Attempt", Integer.toString(attempt));
        if (m.transactionId() != null) {
            o.putHeader("Exactly-Transaction-Id", percentEncode(m.transactionId()));
        }
        if (d.signingSecret() != null) {
            o.putHeader("webhook-signature", WebhookSigner.sign(DestinationRules.key(d.signingSecret()), m.messageId(), now, m.body()));
        }
        AtomicReference<HttpClientRequest> sent = new AtomicReference<>();
        AtomicBoolean abandoned = new AtomicBoolean();
        CompletableFuture<HttpClientResponse> answer = new CompletableFuture<>();
        context.runOnContext(v -> client.request(o)
                .compose(req -> {
                    sent.set(req);
                    if (abandoned.get()) { // timed out before the request existed: it is never sent
                        req.reset();
                        return Future.<HttpClientResponse>failedFuture("abandoned");
                    }
                    return req.send(Buffer.buffer(m.body()));
                })
                .map(resp -> {
                    dropBody(resp, sent.get(), d.timeoutMs());
                    return resp;
                })
                .onComplete(ar -> {
                    if (ar.succeeded()) {
                        answer.complete(ar.result());
                    } else {
                        answer.completeExceptionally(ar.cause());
                    }
                }));
        HttpClientResponse resp;
        try {
            resp = answer.get(d.timeoutMs(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            context.runOnContext(v -> {
                abandoned.set(true);
                abandon(sent.get());
            });
            return new Result(false, 0, null, "no answer within " + d.timeoutMs() + " ms (timeoutMs)");
        } catch (ExecutionException e) {
            Throwable c = e.getCause() == null ? e : e.getCause();
            return new Result(false, 0, null, "request failed: " + c.getClass().getSimpleName()
                    + (c.getMessage() == null ? "" : ": " + c.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(false, 0, null, "interrupted (shutting down)");
        }
        int status = resp.statusCode();
        if (status >= 200 && status < 300) {
            return new Result(true, status, null, null);
        }
        return new Result(false, status, retryAfterMs(resp.getHeader("Retry-After")), "answered HTTP " + status);
    }

    /**
     * Reads a response's body and drops it. The connection is closed instead of read on when the
     * body passes {@link #MAX_RESPONSE_BODY_BYTES} or has not ended {@code timeoutMs} after this
     * call; a body read to its end leaves the connection to the pool. Runs on {@link #context}; a
     * response that has already ended needs nothing, and chunks that arrived before the handler
     * are dropped by the client anyway.
     */
    void dropBody(HttpClientResponse resp, HttpClientRequest req, int timeoutMs) {
        Future<Void> end = resp.end();
        if (end.isComplete()) {
            return;
        }
        long timer = vertx.setTimer(timeoutMs, t -> abandon(req));
        end.onComplete(done -> vertx.cancelTimer(timer));
        long[] read = {0};
        // on the context that also ends the response, so it cannot end between the check above and here
        resp.exceptionHandler(e -> vertx.cancelTimer(timer)); // the attempt's outcome is decided: nothing to report
        resp.handler(chunk -> {
            read[0] += chunk.length();
            if (read[0] > MAX_RESPONSE_BODY_BYTES) {
                vertx.cancelTimer(timer);
                abandon(req);
            }
        });
    }

    /**
     * Gives up on a request: resets it (for HTTP/1.1, closes its connection) unless its response
     * has ended, in which case its connection may already serve another request and is left alone.
     * Runs on {@link #context}, the thread that also ends responses, so the check cannot go stale.
     *
     * @param req the request, or null when it was not made yet (nothing to do)
     */
    void abandon(HttpClientRequest req) {
        if (req == null) {
            return;
        }
        Future<HttpClientResponse> answered = req.response();
        if (answered.succeeded() && answered.result().end().isComplete()) {
            return;
        }
        req.reset();
    }

    /** @return a Retry-After value (delay in seconds, or an HTTP date) in milliseconds from now; null when absent or unreadable */
    static Long retryAfterMs(String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        String v = value.strip();
        if (v.matches("[0-9]{1,9}")) {
            return Long.parseLong(v) * 1000L;
        }
        try {
            long at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant().toEpochMilli();
            return Math.max(0, at - System.currentTimeMillis());
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /** Percent-encodes the UTF-8 bytes of {@code s}, all but A-Z a-z 0-9 - . _ ~ (RFC 3986's unreserved). */
    static String percentEncode(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.'
                    || c == '_' || c == '~') {
                out.append((char) c);
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return out.toString();
    }

    @Override
    public void close() {
        clients.values().forEach(HttpClient::close);
        clients.clear();
    }
}
