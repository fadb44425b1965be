package dev.exactly.db;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP relay on 127.0.0.1 in front of a database that can drop the connections it holds the
 * way an RDS Proxy drops idle clients while a Lambda instance is frozen: the client does not
 * notice until it next sends something, and then finds the connection closed. New connections
 * are relayed normally.
 */
final class DroppingProxy implements AutoCloseable {

    private final ServerSocket server;
    private final int targetPort;
    private final List<Link> links = new CopyOnWriteArrayList<>();
    private final AtomicInteger accepted = new AtomicInteger();

    /** @param targetPort the database's port on 127.0.0.1 */
    DroppingProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(this::acceptLoop, "dropping-proxy");
        t.setDaemon(true);
        t.start();
    }

    /** The relay's port on 127.0.0.1. */
    int port() {
        return server.getLocalPort();
    }

    /** Connections accepted so far. */
    int accepted() {
        return accepted.get();
    }

    /** Every connection open now is closed when its client next writes (nothing is forwarded). */
    void dropOnNextUse() {
        links.forEach(l -> l.doomed = true);
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                accepted.incrementAndGet();
                Socket upstream = new Socket();
                upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort));
                Link link = new Link(client, upstream);
                links.add(link);
                pump(link, client, upstream, true);
                pump(link, upstream, client, false);
            } catch (IOException e) {
                return;
            }
        }
    }

    private void pump(Link link, Socket from, Socket to, boolean fromClient) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[16384];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buf)) >= 0; ) {
                    if (fromClient && link.doomed) {
                        break;
                    }
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException ignored) {
                // the other side closed
            } finally {
                link.close();
            }
        }, "dropping-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void close() throws IOException {
        server.close();
        links.forEach(Link::close);
    }

    private static final class Link {
        final Socket client;
        final Socket upstream;
        volatile boolean doomed;

        Link(Socket client, Socket upstream) {
            this.client = client;
            this.upstream = upstream;
        }

        void close() {
            try {
                client.close();
            } catch (IOException ignored) {
                // already closed
            }
            try {
                upstream.close();
            } catch (IOException ignored) {
                // already closed
            }
        }
    }
}
