package dev.exactly.message;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** Checks whether bytes are one well-formed JSON value in UTF-8 (RFC 8259), so they can be embedded raw. */
final class JsonText {

    private static final JsonFactory FACTORY = new JsonFactory();

    private JsonText() {
    }

    /** @return the text when {@code bytes} are valid UTF-8 holding exactly one JSON value, else null */
    static String wellFormed(byte[] bytes) {
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
        try (JsonParser p = FACTORY.createParser(text)) {
            if (p.nextToken() == null) {
                return null;
            }
            p.skipChildren();
            return p.nextToken() == null ? text : null;
        } catch (IOException e) {
            return null;
        }
    }
}
