package dev.exactly.lambda.runtime;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay on 127.0.0.1 between a client and a PostgreSQL server that reads what the client
 * sends, as the PostgreSQL frontend/backend protocol (version 3.0, PostgreSQL manual chapter
 * "Frontend/Backend Protocol", "Message Formats") frames it: each connection's startup message
 * and its parameters, and every Query ('Q') and Parse ('P') message with its statement name. It is
 * how the tests see, without AWS, what an RDS Proxy in between would see of the Lambda shape's
 * sessions (AWS documents SET, named prepared statements and LISTEN as pinning). It reads plain
 * connections only (a client's SSLRequest is forwarded, and a server that accepts it would make
 * the rest unreadable: the tests' embedded server refuses SSL).
 */
public final class PgWireRecorder implements AutoCloseable {

    /** One client connection: its startup parameters and the statements it sent. */
    public record Session(Map<String, String> startup, List<Statement> statements) {
    }

    /**
     * One statement message.
     *
     * @param type 'Q' (simple query) or 'P' (Parse of the extended protocol)
     * @param name the prepared statement's name ("" for the unnamed one; "" for 'Q')
     * @param sql  its text
     */
    public record Statement(char type, String name, String sql) {
    }

    private final ServerSocket listener;
    private final int targetPort;
    private final List<Session> sessions = new CopyOnWriteArrayList<>();
    private final List<Socket> open = new CopyOnWriteArrayList<>();

    /**
     * Starts relaying to a server on 127.0.0.1.
     *
     * @param targetPort the server's port
     * @throws IOException when no port can be opened
     */
    public PgWireRecorder(int targetPort) throws IOException {
        this.targetPort = targetPort;
        listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread accept = new Thread(this::accept, "pg-wire-recorder");
        accept.setDaemon(true);
        accept.start();
    }

    /** The port clients connect to instead of the server's. */
    public int port() {
        return listener.getLocalPort();
    }

    /** Every connection seen so far. */
    public List<Session> sessions() {
        return sessions;
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                open.add(client);
                open.add(server);
                Session session = new Session(new LinkedHashMap<>(), new CopyOnWriteArrayList<>());
                sessions.add(session);
                start(() -> record(client.getInputStream(), server.getOutputStream(), session));
                start(() -> copy(server.getInputStream(), client.getOutputStream()));
            } catch (IOException e) {
                return;
            }
        }
    }

    private interface Io {
        void run() throws IOException;
    }

    private static void start(Io io) {
        Thread t = new Thread(() -> {
            try {
                io.run();
            } catch (IOException ignored) {
                // the connection closed
            }
        }, "pg-wire-relay");
        t.setDaemon(true);
        t.start();
    }

    private static void copy(InputStream in, OutputStream out) throws IOException {
        byte[] buffer = new byte[8192];
        for (int n; (n = in.read(buffer)) >= 0; ) {
            out.write(buffer, 0, n);
            out.flush();
        }
        out.close();
    }

    private static void record(InputStream raw, OutputStream out, Session session) throws IOException {
        DataInputStream in = new DataInputStream(raw);
        // untyped messages until the startup message: SSLRequest / GSSENCRequest (8 bytes), then startup
        while (true) {
            int length = in.readInt();
            byte[] body = new byte[length - 4];
            in.readFully(body);
            out.write(int32(length));
            out.write(body);
            out.flush();
            int code = ((body[0] & 0xff) << 24) | ((body[1] & 0xff) << 16) | ((body[2] & 0xff) << 8) | (body[3] & 0xff);
            if (code == 80877103 || code == 80877104) {
                continue; // SSLRequest, GSSENCRequest: the server answers N (refused) and the client goes on in plain
            }
            if (code == 80877102) {
                return; // CancelRequest: nothing follows
            }
            List<String> fields = cStrings(body, 4);
            for (int i = 0; i + 1 < fields.size(); i += 2) {
                session.startup().put(fields.get(i), fields.get(i + 1));
            }
            break;
        }
        while (true) {
            int type = in.read();
            if (type < 0) {
                out.close();
                return;
            }
            int length = in.readInt();
            byte[] body = new byte[length - 4];
            in.readFully(body);
            if (type == 'Q') {
                session.statements().add(new Statement('Q', "", cStrings(body, 0).get(0)));
            } else if (type == 'P') {
                List<String> fields = cStrings(body, 0);
                session.statements().add(new Statement('P', fields.get(0), fields.get(1)));
            }
            out.write(type);
            out.write(int32(length));
            out.write(body);
            out.flush();
        }
    }

    private static byte[] int32(int v) {
        return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
    }

    /** The NUL-terminated strings of body from offset on (the last, empty one, ends the list). */
    private static List<String> cStrings(byte[] body, int offset) {
        List<String> out = new java.util.ArrayList<>();
        int start = offset;
        for (int i = offset; i < body.length; i++) {
            if (body[i] == 0) {
                out.add(new String(body, start, i - start, StandardCharsets.UTF_8));
                start = i + 1;
            }
        }
        return out;
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (Socket s : open) {
            s.close();
        }
    }
}
