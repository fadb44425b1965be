package dev.exactly.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * POSTs with a chunked body (Transfer-Encoding: chunked, no Content-Length) over a plain socket to
 * the test server. {@link #filler}, {@link #unfinished} and {@link #body} send the test API key and
 * return the answer's raw text: status line, headers and body, whatever arrived before the
 * connection closed; {@link #post} and {@link #api} send given bytes in 64 KiB chunks and return
 * the answer parsed ({@link Answer}).
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

    /**
     * An answer read whole.
     *
     * @param status  the status code
     * @param headers header fields, names lower-cased (the last of a repeated name)
     * @param body    the body bytes, chunked transfer coding removed
     */
    public record Answer(int status, Map<String, String> headers, byte[] body) {

        /** The body as UTF-8 text. */
        public String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /**
     * Sends {@code body} to an API path with the test API key and a JSON content type, in chunks of
     * at most 64 KiB (see {@link #post(String, byte[], String...)}).
     */
    public static Answer api(String path, byte[] body) throws IOException {
        return post(path, body, "Authorization", "Bearer " + Api.TEST_API_KEY, "Content-Type", "application/json");
    }

    /**
     * Sends {@code body} chunked (Transfer-Encoding: chunked, no Content-Length) in chunks of at
     * most 64 KiB, with these header name/value pairs, on a connection to be closed, and reads the
     * whole answer (at most 30 s). A connection the server closes mid-body ends the sending.
     */
    public static Answer post(String path, byte[] body, String... headerPairs) throws IOException {
        StringBuilder head = new StringBuilder("POST ").append(path).append(" HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        for (int i = 0; i < headerPairs.length; i += 2) {
            head.append(headerPairs[i]).append(": ").append(headerPairs[i + 1]).append("\r\n");
        }
        head.append("Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
        try (Socket s = new Socket("127.0.0.1", port())) {
            s.setSoTimeout(30_000);
            OutputStream out = s.getOutputStream();
            try {
                out.write(head.toString().getBytes(StandardCharsets.US_ASCII));
                for (int at = 0; at < body.length; at += CHUNK) {
                    int n = Math.min(CHUNK, body.length - at);
                    out.write((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                    out.write(body, at, n);
                    out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                }
                out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
            } catch (IOException closed) {
                // the server answered and closed the connection mid-body
            }
            return parse(readAll(s.getInputStream()));
        }
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] buf = new byte[65536];
        try {
            for (int n = in.read(buf); n > 0; n = in.read(buf)) {
                all.write(buf, 0, n);
            }
        } catch (IOException reset) {
            // keep what arrived before the connection was closed
        }
        return all.toByteArray();
    }

    private static Answer parse(byte[] raw) {
        int end = indexOf(raw, "\r\n\r\n".getBytes(StandardCharsets.US_ASCII), 0);
        if (end < 0) {
            throw new IllegalStateException("no complete answer: " + new String(raw, StandardCharsets.UTF_8));
        }
        String[] lines = new String(raw, 0, end, StandardCharsets.US_ASCII).split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        Map<String, String> headers = new TreeMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
        }
        byte[] rest = Arrays.copyOfRange(raw, end + 4, raw.length);
        if (!"chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            String length = headers.get("content-length");
            return new Answer(status, headers, length == null ? rest : Arrays.copyOf(rest, Integer.parseInt(length)));
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        int at = 0;
        while (true) {
            int eol = indexOf(rest, "\r\n".getBytes(StandardCharsets.US_ASCII), at);
            int size = Integer.parseInt(new String(rest, at, eol - at, StandardCharsets.US_ASCII).split(";")[0].trim(), 16);
            if (size == 0) {
                return new Answer(status, headers, body.toByteArray());
            }
            body.write(rest, eol + 2, size);
            at = eol + 2 + size + 2;
        }
    }

    private static int indexOf(byte[] in, byte[] what, int from) {
        outer:
        for (int i = from; i <= in.length - what.length; i++) {
            for (int j = 0; j < what.length; j++) {
                if (in[i + j] != what[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
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
