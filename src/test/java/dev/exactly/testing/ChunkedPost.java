package dev.exactly.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * POSTs with a chunked body (Transfer-Encoding: chunked, no Content-Length) over a plain socket to
 * the test server, with the test API key, and returns the answer's raw text: status line, headers
 * and body, whatever arrived before the connection closed.
 */
public final class ChunkedPost {

    private static final int CHUNK = 64 * 1024;

    private ChunkedPost() {
    }

    /**
     * Sends {@code size} bytes of 'a' in 64 KiB chunks, then the last chunk; a connection the
     * server closes mid-body ends the sending.
     */
    public static String filler(String path, long size) throws IOException {
        return send(path, size, true);
    }

    /**
     * Sends {@code size} bytes of 'a' in 64 KiB chunks and never the last chunk, then waits for the
     * answer (at most 30 s): only a server that refuses the body before its end can answer.
     */
    public static String unfinished(String path, long size) throws IOException {
        return send(path, size, false);
    }

    /** Sends {@code body} as one chunk, then the last chunk, on a connection to be closed. */
    public static String body(String path, byte[] body) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port())) {
            s.setSoTimeout(30_000);
            OutputStream out = s.getOutputStream();
            out.write(head(path).replace("Connection: keep-alive", "Connection: close").getBytes(StandardCharsets.US_ASCII));
            out.write((Integer.toHexString(body.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.write("\r\n0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return read(s.getInputStream());
        }
    }

    private static String send(String path, long size, boolean finish) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port())) {
            s.setSoTimeout(30_000);
            OutputStream out = s.getOutputStream();
            out.write(head(path).getBytes(StandardCharsets.US_ASCII));
            byte[] chunk = new byte[CHUNK];
            Arrays.fill(chunk, (byte) 'a');
            try {
                for (long sent = 0; sent < size; sent += chunk.length) {
                    out.write((Integer.toHexString(chunk.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                    out.write(chunk);
                    out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                }
                if (finish) {
                    out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                }
                out.flush();
            } catch (IOException closed) {
                // the server answered and closed the connection mid-body
            }
            return read(s.getInputStream());
        }
    }

    private static String head(String path) {
        return "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + Api.TEST_API_KEY
                + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n";
    }

    private static String read(InputStream in) throws IOException {
        byte[] buf = new byte[8192];
        StringBuilder b = new StringBuilder();
        try {
            for (int n = in.read(buf); n > 0; n = in.read(buf)) {
                b.append(new String(buf, 0, n, StandardCharsets.UTF_8));
                if (b.indexOf("\r\n\r\n") > 0 && b.toString().matches("(?s).*\\r\\n\\r\\n\\{.*}\\s*$")) {
                    break;
                }
            }
        } catch (IOException reset) {
            // read what arrived before the connection was closed
        }
        return b.toString();
    }

    private static int port() {
        return ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
    }
}
