package dev.exactly.http;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.io.IOException;
import java.util.Arrays;

/**
 * A JSON value exactly as the request sent it: its bytes in the body (a push payload, a task's
 * data and result), so numbers, member order, whitespace and escapes reach the store unchanged and
 * no tree is built for it. JSON null binds as {@link #NULL}, an absent member as a null component.
 * Only {@link JsonBodyReader} binds it: its parser reads the body's bytes, whose offsets cut the
 * value out.
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
            return new RawJson(Arrays.copyOfRange(body, (int) start, (int) end));
        }
    }
}
