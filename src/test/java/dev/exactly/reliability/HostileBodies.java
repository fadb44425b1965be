package dev.exactly.reliability;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Hostile request bodies for the fuzz tests, from a java.util.Random (so the property test, via
 * jqwik, and the HTTP test, via a seed, draw from the same generators): random JSON with the API's
 * field names, deep nesting around Jackson's 1000-level limit, huge and odd numbers, strings with
 * lone surrogates, NUL and control characters, non-BMP and look-alike characters, lengths at the
 * 255-character and 256-byte limits; byte-level damage (invalid UTF-8, raw NUL, truncation, a
 * flipped byte, UTF-16/UTF-32 and byte order marks); and well-formed requests whose contents are
 * hostile but valid, so that the correct verdict can be checked too.
 */
final class HostileBodies {

    /** Queues the push fuzz writes to (configure fuzz never touches them, so windows stay at 3600 s). */
    static final List<String> PUSH_QUEUES = List.of("fuzz-p0", "fuzz-p1", "q".repeat(255));

    /** Queues the configure fuzz may name. */
    static final List<String> CONFIGURE_QUEUES = List.of("fuzz-c0", "fuzz-c1", "c".repeat(255));

    private static final String[] KEYS = {
        "items", "queue", "partition", "transactionId", "payload", "traceId", "options", "dedupWindowSeconds",
        "retentionSeconds", "leaseTime", "retryLimit", "retryDelay", "tenant", "id", "transactionID", "", "\u0000",
        "type", "data", "autoDedupe", "maxRetries", "retryDelaySeconds", "priority", "runAt", "tasks", "consumerGroup",
        "batch", "leaseSeconds", "waitMillis", "messageId", "leaseId", "status", "error", "operations"
    };

    private static final String[] NUMBERS = {
        "0", "-0", "1", "-1", "2147483647", "2147483648", "-2147483649", "9223372036854775807", "9223372036854775808",
        "1e400", "-1e400", "1E-400", "1.5", "3600.0", "36e2", "0.1e1", "123456789012345678901234567890",
        "1" + "0".repeat(999), "1" + "0".repeat(1001), "0." + "0".repeat(2000) + "1", "NaN", "Infinity", "01", "1.",
        "-", "+1", ".5", "0x10"
    };

    private static final String[] TEXTS = {
        "", " ", "café", "cafe\u0301", "\u212B", "\u00C5", "\uFB01", "\u202Eevil\u202C", "a\u200Db", "\uFEFFbom",
        "\uFFFF", "\uDBFF\uDFFF", "\uD83D\uDE00", "\uD800", "\uDC00", "\uDC00\uD800", "a\u0000b", "\u0000",
        "\t\n\r\u0001\u001F", "\u007F\u0085\u2028\u2029", "Default", "0", "a/b", "..", "-", ":", "has space",
        "é".repeat(128), "é".repeat(129), "\uD83D\uDE00".repeat(64), "\uD83D\uDE00".repeat(65), "x".repeat(255),
        "x".repeat(256), "x".repeat(257), "\u4E2D\u6587", "\u0627\u0644\u0639\u0631\u0628\u064A\u0629"
    };

    private HostileBodies() {
    }

    // ---- push ------------------------------------------------------------------------------

    /** A hostile push body. */
    static byte[] push(Random r) {
        switch (r.nextInt(12)) {
            case 0, 1, 2, 3:
                return utf8(validPush(r));
            case 4:
                return utf8("{\"items\":[" + join(r, 1 + r.nextInt(4), () -> randomObject(r, 2)) + "]}");
            case 5:
                return utf8(jsonValue(r, 3));
            case 6:
                return damage(r, utf8(validPush(r)));
            case 7:
                return utf8("{\"items\":[{\"queue\":\"fuzz-p0\",\"transactionId\":\"deep\",\"payload\":"
                        + nested(r, depth(r)) + "}]}");
            case 8:
                return encoded(r, validPush(r));
            case 9:
                return utf8("{\"items\":[" + join(r, 1001, () -> "{\"queue\":\"fuzz-p0\",\"payload\":1}") + "]}");
            case 10:
                return utf8("{\"items\":[{\"queue\":\"fuzz-p1\",\"transactionId\":" + number(r) + ",\"payload\":"
                        + number(r) + "}]}");
            default:
                return utf8(nested(r, depth(r)));
        }
    }

    /** A well-formed push whose names, ids and payloads are hostile but mostly valid. */
    static String validPush(Random r) {
        StringBuilder b = new StringBuilder("{\"items\":[");
        int n = 1 + r.nextInt(12);
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "" : ",").append("{\"queue\":").append(quote(pick(r, PUSH_QUEUES)));
            if (r.nextBoolean()) {
                b.append(",\"partition\":").append(quote(r.nextInt(4) == 0 ? "p".repeat(255) : "" + r.nextInt(3)));
            }
            if (r.nextInt(5) > 0) {
                // a small pool of ids, so that duplicates of stored and of earlier items happen
                String id = r.nextInt(8) == 0 ? text(r) : TEXTS[r.nextInt(TEXTS.length)] + "#" + r.nextInt(20);
                b.append(",\"transactionId\":").append(quote(id));
            }
            b.append(",\"payload\":").append(r.nextInt(10) == 0 ? nested(r, 1 + r.nextInt(200)) : jsonValue(r, 3));
            if (r.nextInt(6) == 0) {
                b.append(",\"traceId\":").append(quote(text(r)));
            }
            b.append('}');
        }
        return b.append("]}").toString();
    }

    // ---- configure -------------------------------------------------------------------------

    /** A hostile configure body. */
    static byte[] configure(Random r) {
        switch (r.nextInt(10)) {
            case 0, 1, 2, 3:
                return utf8(validConfigure(r));
            case 4:
                return utf8(randomObject(r, 3));
            case 5:
                return damage(r, utf8(validConfigure(r)));
            case 6:
                return encoded(r, validConfigure(r));
            case 7:
                return utf8("{\"queue\":\"fuzz-c0\",\"options\":" + nested(r, depth(r)) + "}");
            default:
                return utf8(jsonValue(r, 3));
        }
    }

    /** A configure request with random (valid and invalid) option values. */
    static String validConfigure(Random r) {
        StringBuilder b = new StringBuilder("{\"queue\":").append(quote(r.nextInt(4) == 0 ? text(r) : pick(r, CONFIGURE_QUEUES)));
        if (r.nextInt(5) > 0) {
            b.append(",\"options\":{");
            String[] names = {"dedupWindowSeconds", "retentionSeconds", "leaseTime", "retryLimit", "retryDelay", "bogus"};
            int n = r.nextInt(names.length + 1);
            for (int i = 0; i < n; i++) {
                b.append(i == 0 ? "" : ",").append(quote(names[r.nextInt(names.length)])).append(':')
                        .append(r.nextInt(3) == 0 ? jsonValue(r, 1) : r.nextBoolean() ? number(r) : "" + r.nextInt(100_000));
            }
            b.append('}');
        }
        return b.append('}').toString();
    }

    // ---- tasks, consume, transactions ---------------------------------------------------------

    /** A hostile task enqueue body ({@code POST /api/v1/tasks}). */
    static byte[] task(Random r) {
        switch (r.nextInt(8)) {
            case 0, 1, 2, 3:
                return utf8(validTask(r));
            case 4:
                return damage(r, utf8(validTask(r)));
            case 5:
                return encoded(r, validTask(r));
            case 6:
                return utf8("{\"type\":\"t\",\"data\":" + nested(r, depth(r)) + "}");
            default:
                return utf8(randomObject(r, 3));
        }
    }

    /** A hostile task batch body ({@code POST /api/v1/tasks/batch}). */
    static byte[] taskBatch(Random r) {
        if (r.nextInt(5) == 0) {
            return damage(r, utf8("{\"tasks\":[" + validTask(r) + "]}"));
        }
        int n = r.nextInt(10) == 0 ? 1001 : r.nextInt(6);
        return utf8("{\"tasks\":[" + join(r, n, () -> validTask(r)) + "]}");
    }

    /** A task with hostile but plausible fields. */
    static String validTask(Random r) {
        StringBuilder b = new StringBuilder("{\"type\":").append(quote(r.nextInt(4) == 0 ? text(r) : "fuzz"));
        b.append(",\"data\":").append(jsonValue(r, 3));
        if (r.nextBoolean()) {
            b.append(",\"queue\":").append(quote(r.nextInt(3) == 0 ? text(r) : "fuzz-tasks"));
        }
        if (r.nextBoolean()) {
            b.append(",\"id\":").append(quote(r.nextInt(3) == 0 ? text(r) : "fuzz-" + r.nextInt(50)));
        }
        String[] numeric = {"maxRetries", "retryDelaySeconds", "priority"};
        for (String f : numeric) {
            if (r.nextInt(3) == 0) {
                b.append(",\"").append(f).append("\":").append(r.nextBoolean() ? number(r) : "" + r.nextInt(10));
            }
        }
        if (r.nextInt(3) == 0) {
            b.append(",\"autoDedupe\":").append(r.nextBoolean() ? "true" : jsonValue(r, 0));
        }
        if (r.nextInt(4) == 0) {
            String[] at = {"2030-01-01T09:00:00Z", "2030-13-01T00:00:00Z", "yesterday", "1970-01-01T00:00:00Z",
                "+999999999-12-31T23:59:59Z", "2030-01-01T09:00:00+25:00", ""};
            b.append(",\"runAt\":").append(quote(at[r.nextInt(at.length)]));
        }
        return b.append('}').toString();
    }

    /** A hostile pop body (never a long wait). */
    static byte[] pop(Random r) {
        if (r.nextInt(4) == 0) {
            return r.nextBoolean() ? damage(r, utf8("{\"queue\":\"fuzz-p0\"}")) : utf8(randomObject(r, 2));
        }
        StringBuilder b = new StringBuilder("{\"queue\":").append(quote(r.nextInt(3) == 0 ? text(r) : pick(r, PUSH_QUEUES)));
        if (r.nextBoolean()) {
            b.append(",\"consumerGroup\":").append(quote(r.nextInt(3) == 0 ? text(r) : "fuzz"));
        }
        if (r.nextBoolean()) {
            b.append(",\"batch\":").append(r.nextBoolean() ? number(r) : "" + r.nextInt(20));
        }
        if (r.nextBoolean()) {
            b.append(",\"leaseSeconds\":").append(r.nextBoolean() ? number(r) : "" + r.nextInt(5));
        }
        b.append(",\"waitMillis\":").append(r.nextInt(3) == 0 ? "-1" : "0");
        return utf8(b.append('}').toString());
    }

    /** A hostile ack body (single or batch). */
    static byte[] ack(Random r, boolean batch) {
        String one = ackText(r);
        String body = batch ? "{\"items\":[" + one + "]}" : one;
        return r.nextInt(5) == 0 ? damage(r, utf8(body)) : utf8(body);
    }

    /** One ack object with hostile fields. */
    static String ackText(Random r) {
        return "{\"messageId\":" + quote(r.nextBoolean() ? java.util.UUID.randomUUID().toString() : text(r))
                + ",\"consumerGroup\":" + quote(r.nextBoolean() ? "fuzz" : text(r))
                + ",\"leaseId\":" + quote(r.nextBoolean() ? java.util.UUID.randomUUID().toString() : text(r))
                + ",\"status\":" + quote(new String[] {"completed", "failed", "retry", "dlq", "done", ""}[r.nextInt(6)])
                + (r.nextInt(4) == 0 ? ",\"error\":" + jsonValue(r, 1) : "") + "}";
    }

    /** A hostile transaction body: pushes and acks. */
    static byte[] transaction(Random r) {
        String ops = join(r, r.nextInt(4), () -> {
            if (r.nextBoolean()) {
                String push = validPush(r);
                return "{\"type\":\"push\",\"items\":" + push.substring("{\"items\":".length(), push.length() - 1) + "}";
            }
            return "{\"type\":\"ack\"," + ackText(r).substring(1);
        });
        String body = "{\"operations\":[" + ops + "]}";
        return r.nextInt(5) == 0 ? damage(r, utf8(body)) : utf8(body);
    }

    // ---- webhooks ----------------------------------------------------------------------------

    /** A webhook body: JSON with a tenant (partition) most of the time, or damaged bytes. */
    static byte[] webhook(Random r) {
        switch (r.nextInt(6)) {
            case 0, 1, 2:
                return utf8("{\"tenant\":" + quote(r.nextInt(4) == 0 ? text(r) : "t" + r.nextInt(3)) + ",\"order\":"
                        + jsonValue(r, 2) + ",\"sent_at\":" + number(r) + ",\"meta\":{\"attempt\":" + r.nextInt(5) + "}}");
            case 3:
                return damage(r, utf8("{\"tenant\":\"t0\",\"order\":" + jsonValue(r, 2) + "}"));
            case 4:
                return utf8("{\"tenant\":\"t1\",\"order\":" + nested(r, depth(r)) + "}");
            default:
                byte[] raw = new byte[r.nextInt(64)];
                r.nextBytes(raw);
                return raw;
        }
    }

    // ---- building blocks ---------------------------------------------------------------------

    /** Nesting depths around Jackson's default limit of 1000. */
    private static int depth(Random r) {
        int[] d = {2, 64, 500, 999, 1000, 1001, 2000, 20_000};
        return d[r.nextInt(d.length)];
    }

    /** {@code depth} nested arrays or objects. */
    static String nested(Random r, int depth) {
        boolean arrays = r.nextBoolean();
        StringBuilder b = new StringBuilder(depth * 6);
        for (int i = 0; i < depth; i++) {
            b.append(arrays ? "[" : "{\"a\":");
        }
        b.append(r.nextBoolean() ? "1" : "\"x\"");
        for (int i = 0; i < depth; i++) {
            b.append(arrays ? ']' : '}');
        }
        return b.toString();
    }

    /** A random JSON value (always well-formed JSON text, except where a number is deliberately not). */
    static String jsonValue(Random r, int depth) {
        switch (r.nextInt(depth <= 0 ? 5 : 8)) {
            case 0:
                return quote(text(r));
            case 1:
                return r.nextInt(4) == 0 ? number(r) : Long.toString(r.nextLong());
            case 2:
                return r.nextBoolean() ? "true" : "false";
            case 3:
                return "null";
            case 4:
                return Double.toString(r.nextGaussian() * 1e6);
            case 5:
            case 6:
                return randomObject(r, depth - 1);
            default:
                return "[" + join(r, r.nextInt(5), () -> jsonValue(r, depth - 1)) + "]";
        }
    }

    /** An object of 0 to 4 members, names mostly the API's own. */
    static String randomObject(Random r, int depth) {
        return "{" + join(r, r.nextInt(5), () -> quote(r.nextInt(4) == 0 ? text(r) : KEYS[r.nextInt(KEYS.length)]) + ":"
                + jsonValue(r, depth - 1)) + "}";
    }

    /** A number token, often one of the odd or huge ones (some not valid JSON). */
    static String number(Random r) {
        return NUMBERS[r.nextInt(NUMBERS.length)];
    }

    /** Text with hostile characters: a fixed sample, or random UTF-16 units of every kind. */
    static String text(Random r) {
        if (r.nextBoolean()) {
            return TEXTS[r.nextInt(TEXTS.length)];
        }
        StringBuilder b = new StringBuilder();
        int n = r.nextInt(20) == 0 ? 200 + r.nextInt(200) : r.nextInt(16);
        for (int i = 0; i < n; i++) {
            switch (r.nextInt(6)) {
                case 0 -> b.append((char) r.nextInt(0x80));
                case 1 -> b.append((char) r.nextInt(0x10000)); // lone surrogates included
                case 2 -> b.appendCodePoint(0x10000 + r.nextInt(0x100000));
                case 3 -> b.append((char) r.nextInt(0x20));
                default -> b.append((char) ('a' + r.nextInt(26)));
            }
        }
        return b.toString();
    }

    /** A JSON string literal: quotes, backslashes, control characters and lone surrogates escaped. */
    static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean pair = Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
            if (pair) {
                b.append(c).append(s.charAt(++i));
            } else if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20 || Character.isSurrogate(c)) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }

    /** Byte-level damage: invalid UTF-8 inserted, a raw NUL, a truncation, a flipped byte. */
    static byte[] damage(Random r, byte[] body) {
        byte[][] invalid = {
            {(byte) 0xC3, 0x28}, {(byte) 0xFF}, {(byte) 0xFE}, {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
            {(byte) 0xC0, (byte) 0x80}, {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, {(byte) 0x80}, {0}
        };
        int at = r.nextInt(body.length + 1);
        switch (r.nextInt(4)) {
            case 0, 1: {
                byte[] bad = invalid[r.nextInt(invalid.length)];
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                out.write(body, 0, at);
                out.writeBytes(bad);
                out.write(body, at, body.length - at);
                return out.toByteArray();
            }
            case 2:
                return Arrays.copyOf(body, at);
            default: {
                byte[] copy = body.clone();
                if (copy.length > 0) {
                    copy[Math.min(at, copy.length - 1)] ^= (byte) (1 << r.nextInt(8));
                }
                return copy;
            }
        }
    }

    /** The text in UTF-16 or UTF-32 (with or without a byte order mark), or UTF-8 with a BOM. */
    static byte[] encoded(Random r, String json) {
        switch (r.nextInt(5)) {
            case 0:
                return json.getBytes(StandardCharsets.UTF_16BE);
            case 1:
                return json.getBytes(StandardCharsets.UTF_16); // with a BOM
            case 2:
                return json.getBytes(StandardCharsets.UTF_16LE);
            case 3:
                return json.getBytes(java.nio.charset.Charset.forName("UTF-32"));
            default:
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                out.writeBytes(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF});
                out.writeBytes(utf8(json));
                return out.toByteArray();
        }
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static <T> T pick(Random r, List<T> from) {
        return from.get(r.nextInt(from.size()));
    }

    private static String join(Random r, int n, java.util.function.Supplier<String> each) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "" : ",").append(each.get());
        }
        return b.toString();
    }
}
