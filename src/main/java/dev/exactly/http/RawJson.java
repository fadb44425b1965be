package dev.exactly.http;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedList;
import java.util.List;

/**
 * A JSON value exactly as the request sent it: its bytes in the body (a push payload, a task's
 * data and result), so numbers, member order, whitespace and escapes reach the store unchanged and
 * no tree is built for it. JSON null binds as {@link #NULL}, an absent member as a null component.
 * Only {@link JsonBodyReader} binds it: its parser reads the body's bytes, whose offsets cut the
 * value out. A value holding a lone surrogate escape (a backslash, u and D800 to DFFF unpaired, in a
 * string or a member name) is refused: I-JSON (RFC 7493, section 2.1) forbids it, and the AWS services a destination
 * sends to refuse invalid Unicode, so such a message could never be delivered there.
 *
 * @param bytes the value's UTF-8 bytes in the body
 */
@RegisterForReflection
@JsonDeserialize(using = RawJson.Reader.class)
public record RawJson(byte[] bytes) {

    /** JSON null. */
    public static final RawJson NULL = new RawJson(new byte[] {'n', 'u', 'l', 'l'});

    /** @return whether this is JSON null */
    public boolean isNull() {
        return java.util.Arrays.equals(bytes, NULL.bytes);
    }

    /**
     * Finds a lone surrogate escape in well-formed JSON: the backslash-u escape of a high surrogate
     * (D800 to DBFF) not followed at once by the escape of a low one (DC00 to DFFF), or of a low
     * surrogate not preceded by a high one. Raw UTF-8 cannot carry a surrogate (a UTF-8 check
     * refuses one), so an escape is the only way a JSON text holds one.
     *
     * @param json one well-formed JSON value or text, UTF-8 (a backslash occurs only in strings)
     * @return the byte offset of the offending escape's backslash, or -1 when there is none
     */
    public static int loneSurrogateEscape(byte[] json) {
        for (int i = 0; i < json.length - 1; i++) {
            if (json[i] != '\\') {
                continue;
            }
            if (json[i + 1] != 'u') {
                i++; // a two-character escape: \\ or \" among them
                continue;
            }
            int c = hex4(json, i + 2);
            if (c >= 0xD800 && c <= 0xDBFF) {
                int low = i + 7 < json.length && json[i + 6] == '\\' && json[i + 7] == 'u' ? hex4(json, i + 8) : -1;
                if (low < 0xDC00 || low > 0xDFFF) {
                    return i;
                }
                i += 11;
            } else if (c >= 0xDC00 && c <= 0xDFFF) {
                return i;
            } else {
                i += 5;
            }
        }
        return -1;
    }

    /** @return the value of the four hex digits at {@code at}, or -1 when there are not four */
    private static int hex4(byte[] b, int at) {
        if (at + 4 > b.length) {
            return -1;
        }
        int v = 0;
        for (int i = at; i < at + 4; i++) {
            int d = Character.digit(b[i], 16);
            if (d < 0) {
                return -1;
            }
            v = v << 4 | d;
        }
        return v;
    }

    /** Cuts the current value out of the body by the parser's byte offsets. */
    static final class Reader extends StdDeserializer<RawJson> {

        Reader() {
            super(RawJson.class);
        }

        @Override
        public RawJson getNullValue(DeserializationContext ctxt) {
            return NULL;
        }

        @Override
        public Object getAbsentValue(DeserializationContext ctxt) {
            return null;
        }

        @Override
        public RawJson deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            byte[] body = (byte[]) ctxt.getAttribute(JsonBodyReader.BODY);
            long start = p.currentTokenLocation().getByteOffset();
            if (body == null || start < 0) {
                throw new IllegalStateException("a RawJson is bound only by JsonBodyReader, from the body's bytes");
            }
            long end;
            if (p.currentToken().isStructStart()) {
                p.skipChildren(); // the parser still checks all of it: duplicates, depth, number lengths
                end = p.currentTokenLocation().getByteOffset() + 1;
            } else {
                p.finishToken();
                end = p.currentLocation().getByteOffset();
            }
            byte[] value = Arrays.copyOfRange(body, (int) start, (int) end);
            int lone = loneSurrogateEscape(value);
            if (lone >= 0) {
                JsonMappingException e = JsonMappingException.from(p, "must be well-formed Unicode (I-JSON, RFC 7493 section 2.1): "
                        + "lone surrogate escape " + new String(value, lone, 6, StandardCharsets.US_ASCII) + " at byte " + (start + lone));
                List<Object> inside = pathAt(value, lone);
                for (int i = inside.size() - 1; i >= 0; i--) { // the enclosing records' deserializers prepend theirs
                    e.prependPath(inside.get(i) instanceof Integer at ? new JsonMappingException.Reference(null, at)
                            : new JsonMappingException.Reference(null, (String) inside.get(i)));
                }
                throw e;
            }
            return new RawJson(value);
        }

        /**
         * Where in a value the string holding byte {@code at} is: {@code [a, 2]} for the third element
         * of member a; a member name's own string is named by the object that holds it.
         */
        private static List<Object> pathAt(byte[] value, int at) throws IOException {
            List<Object> path = List.of();
            try (JsonParser p = JsonBodyReader.MAPPER.createParser(value)) {
                for (JsonToken t; (t = p.nextToken()) != null && p.currentTokenLocation().getByteOffset() <= at; ) {
                    JsonStreamContext c = p.getParsingContext();
                    LinkedList<Object> here = new LinkedList<>();
                    for (JsonStreamContext x = t == JsonToken.FIELD_NAME ? c.getParent() : c; x != null && !x.inRoot(); x = x.getParent()) {
                        if (x.inArray()) {
                            here.addFirst(x.getCurrentIndex());
                        } else if (x.getCurrentName() != null) {
                            here.addFirst(x.getCurrentName());
                        }
                    }
                    path = here;
                }
            }
            return path;
        }
    }
}
