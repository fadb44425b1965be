package dev.exactly.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 requests written byte for byte on a socket to 127.0.0.1, the request target exactly as
 * given (as {@code curl --path-as-is} sends it: no client normalises dot segments, encodes or
 * decodes anything), one request per connection ({@code Connection: close}).
 */
public final class RawHttp {

    /**
     * An answer.
     *
     * @param status  the status code
     * @param headers the header fields, names lower-cased (the last line of a repeated name wins)
     * @param body    the body as text (a chunked body is returned with its chunk framing)
     */
    public record Answer(int status, Map<String, String> headers, String body) {

        /** @return the header's value, or null */
        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    private RawHttp() {
    }

    /**
     * @param port    the server's port on 127.0.0.1
     * @param method  the method
     * @param target  the request target, sent as it is
     * @param headers extra header fields (Host and Connection are added)
     * @param body    the body, or null for none
     * @return the answer
     * @throws IOException on a socket error or a response that is not HTTP/1.x
     */
    public static Answer send(int port, String method, String target, Map<String, String> headers, byte[] body)
            throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(30_000);
            StringBuilder head = new StringBuilder();
            head.append(method).append(' ').append(target).append(" HTTP/1.1\r\n");
            head.append("Host: 127.0.0.1:").append(port).append("\r\n");
            head.append("Connection: close\r\n");
            headers.forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
            if (body != null) {
                head.append("Content-Length: ").append(body.length).append("\r\n");
            }
            head.append("\r\n");
            OutputStream out = s.getOutputStream();
            out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
            if (body != null) {
                out.write(body);
            }
            out.flush();
            return read(s.getInputStream());
        }
    }

    /**
     * Reads one response to the end of the connection.
     *
     * @param in the connection's input
     * @return the answer
     * @throws IOException when it is not an HTTP/1.x response
     */
    public static Answer read(InputStream in) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        in.transferTo(all);
        String text = all.toString(StandardCharsets.UTF_8);
        int end = text.indexOf("\r\n\r\n");
        if (!text.startsWith("HTTP/1.") || end < 0) {
            throw new IOException("not an HTTP response: " + text);
        }
        String[] lines = text.substring(0, end).split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        Map<String, String> h = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                h.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
            }
        }
        return new Answer(status, h, text.substring(end + 4));
    }
}
