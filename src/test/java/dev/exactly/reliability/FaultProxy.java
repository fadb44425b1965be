package dev.exactly.reliability;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A loopback TCP proxy between an engine instance's pool and PostgreSQL that loses traffic on
 * command, as a network or a load balancer does:
 *
 * <ul>
 * <li>{@link #cutAll()}: every open connection is closed at once, mid-statement or not;</li>
 * <li>{@link #dropNextRequest()}: the next bytes a client sends never reach the server, and that
 *     connection closes (the statement surely did not run);</li>
 * <li>{@link #holdNextReply()}: the next bytes the server sends are held back, the test is told,
 *     and on release that connection closes without them (the statement ran and committed: for a
 *     reply that fits PostgreSQL's 8 KiB send buffer, the server sends nothing before the commit
 *     at Sync; the test can also check the database while the reply is held).</li>
 * </ul>
 *
 * Only arm the last two on a pool whose connection is open and whose statement is prepared
 * (push once first), so that the armed bytes are a push and not a connection handshake.
 */
final class FaultProxy implements AutoCloseable {

    private enum Arm { NONE, DROP_NEXT_REQUEST, HOLD_NEXT_REPLY }

    /** A reply being held back; see {@link #holdNextReply()}. */
    static final class Hold {
        private final CountDownLatch held = new CountDownLatch(1);
        private final CountDownLatch released = new CountDownLatch(1);

        /** @return true once the server's reply has arrived at the proxy and is being held */
        boolean awaitHeld(long seconds) throws InterruptedException {
            return held.await(seconds, TimeUnit.SECONDS);
        }

        /** Closes the connection without delivering the held reply. */
        void release() {
            released.countDown();
        }
    }

    private final ServerSocket server;
    private final int targetPort;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final AtomicReference<Arm> arm = new AtomicReference<>(Arm.NONE);
    private final AtomicReference<Hold> hold = new AtomicReference<>();
    private final AtomicInteger connectionsCut = new AtomicInteger();
    private final AtomicInteger requestsDropped = new AtomicInteger();
    private final AtomicInteger repliesDropped = new AtomicInteger();
    private volatile boolean closed;

    /** Listens on an ephemeral loopback port and forwards to 127.0.0.1:{@code targetPort}. */
    FaultProxy(int targetPort) {
        this.targetPort = targetPort;
        try {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Thread acceptor = new Thread(this::accept, "fault-proxy-accept-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** The port clients connect to. */
    int port() {
        return server.getLocalPort();
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket();
                try {
                    upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 5000);
                } catch (IOException e) {
                    client.close(); // the database is down: refuse, as it would
                    continue;
                }
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(upstream);
                pump(client, upstream, true);
                pump(upstream, client, false);
            } catch (IOException e) {
                if (!closed) {
                    continue;
                }
                return;
            }
        }
    }

    private void pump(Socket from, Socket to, boolean request) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[16384];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    if (request && arm.compareAndSet(Arm.DROP_NEXT_REQUEST, Arm.NONE)) {
                        requestsDropped.incrementAndGet();
                        break;
                    }
                    if (!request && arm.compareAndSet(Arm.HOLD_NEXT_REPLY, Arm.NONE)) {
                        Hold h = hold.get();
                        h.held.countDown();
                        h.released.await(120, TimeUnit.SECONDS);
                        repliesDropped.incrementAndGet();
                        break;
                    }
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException | InterruptedException ignored) {
                // the other side closed, or the link was cut
            } finally {
                close(from);
                close(to);
            }
        }, "fault-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    private void close(Socket s) {
        sockets.remove(s);
        try {
            s.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    /** Closes every open connection now. @return how many sockets were closed */
    int cutAll() {
        int n = 0;
        for (Socket s : sockets.toArray(new Socket[0])) {
            close(s);
            n++;
        }
        if (n > 0) {
            connectionsCut.incrementAndGet();
        }
        return n;
    }

    /** The next bytes any client sends are dropped and that connection is closed. */
    void dropNextRequest() {
        arm.set(Arm.DROP_NEXT_REQUEST);
    }

    /** The next bytes the server sends on any connection are held back, then dropped with the connection. */
    Hold holdNextReply() {
        Hold h = new Hold();
        hold.set(h);
        arm.set(Arm.HOLD_NEXT_REPLY);
        return h;
    }

    /** How often {@link #cutAll()} closed something. */
    int cuts() {
        return connectionsCut.get();
    }

    /** Requests dropped by {@link #dropNextRequest()}. */
    int requestsDropped() {
        return requestsDropped.get();
    }

    /** Replies dropped by {@link #holdNextReply()}. */
    int repliesDropped() {
        return repliesDropped.get();
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        cutAll();
    }
}
