package dev.exactly.push;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.exactly.naming.Names;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The headers of a pushed item: the rules of its {@code headers} object and the JSON object the
 * engine stores in the message's {@code headers} column (as {@code PushCommand#headersJson}).
 *
 * <p>Design: that column holds, for every message, one JSON object of string values: a webhook's
 * kept request headers, a dead letter's {@code x-exactly-dead-letter}, a redrive's
 * {@code x-exactly-redrive}, and for a JSON push the item's own {@code headers} together with the
 * item's first-class fields kept there ("stored fields", listed by {@code PushRequest.Item}). A
 * stored field is written under its own name, so a user header may not take that name (it would
 * pass for the field); names starting {@value #RESERVED_PREFIX} are the service's own. Member order
 * is not kept: the column is jsonb. An item with no headers and no stored field given stores null
 * and builds nothing: no map, no text.
 */
final class ItemHeaders {

    /** Most names in one item's {@code headers}. */
    static final int MAX_NAMES = 32;
    /** Longest name, in characters (all ASCII). */
    static final int MAX_NAME_LENGTH = 64;
    /** Longest value, in UTF-8 bytes. */
    static final int MAX_VALUE_BYTES = 1024;
    /** Most UTF-8 bytes of all names and values of one item's {@code headers}, added up. */
    static final int MAX_TOTAL_BYTES = 8192;
    /** The start of the names the service writes itself, in any letter case. */
    static final String RESERVED_PREFIX = "x-exactly-";

    /** No stored fields. */
    static final String[] NONE = {};

    private static final JsonFactory JSON = new JsonFactory();

    private ItemHeaders() {
    }

    /**
     * Reports each broken rule of an item's {@code headers} as a field of the item: {@code headers}
     * for the object as a whole and for a bad name, {@code headers.<name>} for a value or a name taken;
     * and a stored field's value that no header value could be (NUL, a lone surrogate, over
     * {@value #MAX_VALUE_BYTES} bytes) on that field, whatever its own constraints let through.
     *
     * @param headers the item's headers, or null
     * @param stored  the item's stored fields, {@code name, value} pairs (values may be null)
     * @param broken  takes the field and what is wrong
     */
    static void check(Map<String, String> headers, String[] stored, BiConsumer<String, String> broken) {
        for (int i = 1; i < stored.length; i += 2) { // what jsonb could not hold, beyond the field's own constraints
            String why = stored[i] == null ? null : valueProblem(stored[i]);
            if (why != null) {
                broken.accept(stored[i - 1], why);
            }
        }
        if (headers == null) {
            return;
        }
        if (headers.size() > MAX_NAMES) {
            broken.accept("headers", "must hold at most " + MAX_NAMES + " names");
            return;
        }
        long total = 0;
        for (Map.Entry<String, String> e : headers.entrySet()) {
            String name = e.getKey();
            String value = e.getValue();
            if (!isName(name)) {
                broken.accept("headers", "has the name \"" + shown(name) + "\": a name is 1 to " + MAX_NAME_LENGTH
                        + " characters of A-Z, a-z, 0-9, '.', '_' and '-'");
                continue;
            }
            if (name.toLowerCase(Locale.ROOT).startsWith(RESERVED_PREFIX)) {
                broken.accept("headers." + name, "is a name the service writes itself (" + RESERVED_PREFIX + "…)");
            }
            for (int i = 0; i < stored.length; i += 2) {
                if (stored[i].equals(name)) {
                    broken.accept("headers." + name, "is the item's own field " + name + ": give it there");
                }
            }
            if (value == null) {
                broken.accept("headers." + name, "must be a string");
                continue;
            }
            String why = valueProblem(value);
            if (why != null) {
                broken.accept("headers." + name, why);
                continue;
            }
            total += name.length() + utf8Length(value);
        }
        if (total > MAX_TOTAL_BYTES) {
            broken.accept("headers", "names and values must total at most " + MAX_TOTAL_BYTES + " UTF-8 bytes");
        }
    }

    /**
     * The JSON object to store: the stored fields that are given, then the user's headers.
     *
     * @param headers the item's headers (valid), or null
     * @param stored  the item's stored fields, {@code name, value} pairs (values may be null)
     * @return the JSON text, or null when there is nothing to store (also for an empty {@code headers})
     */
    static String json(Map<String, String> headers, String[] stored) {
        boolean any = headers != null && !headers.isEmpty();
        for (int i = 1; i < stored.length && !any; i += 2) {
            any = stored[i] != null;
        }
        if (!any) {
            return null;
        }
        StringWriter out = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            for (int i = 0; i < stored.length; i += 2) {
                if (stored[i + 1] != null) {
                    g.writeStringField(stored[i], stored[i + 1]);
                }
            }
            if (headers != null) {
                for (Map.Entry<String, String> e : headers.entrySet()) {
                    g.writeStringField(e.getKey(), e.getValue());
                }
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does not fail
        }
        return out.toString();
    }

    /** Why a value cannot be kept (longer than {@value #MAX_VALUE_BYTES} UTF-8 bytes, NUL, a lone surrogate), or null. */
    private static String valueProblem(String value) {
        return value.isEmpty() ? null : Names.checkKey(value, MAX_VALUE_BYTES);
    }

    private static boolean isName(String name) {
        if (name.isEmpty() || name.length() > MAX_NAME_LENGTH) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-')) {
                return false;
            }
        }
        return true;
    }

    /**
     * A refused name as the message quotes it: its first 64 characters, each outside printable
     * ASCII (and the backslash) as a JSON-style escape (a backslash, u, four hex digits), so the
     * client sees which name it was.
     */
    static String shown(String name) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < Math.min(name.length(), MAX_NAME_LENGTH); i++) {
            char c = name.charAt(i);
            if (c >= 0x20 && c < 0x7f && c != '\\') {
                b.append(c);
            } else {
                b.append(String.format("\\u%04x", (int) c));
            }
        }
        return name.length() <= MAX_NAME_LENGTH ? b.toString() : b.append('…').toString();
    }

    private static int utf8Length(String value) {
        return value.getBytes(StandardCharsets.UTF_8).length;
    }
}
