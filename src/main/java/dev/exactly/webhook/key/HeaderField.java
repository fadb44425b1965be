package dev.exactly.webhook.key;

import dev.exactly.webhook.Delivery;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A request header's value (names compare case-insensitively; a header sent on several lines is
 * read as its lines joined by ",", {@link dev.exactly.http.FieldLines}), or, when it is absent, the
 * value of the first alias present (Svix's svix-id for webhook-id). A non-ASCII value is read as
 * the text its sender meant, which the push API stores for the same id: the server's HTTP layer
 * hands each byte over as one ISO-8859-1 character, so bytes that are UTF-8 are decoded as UTF-8,
 * and bytes that are not stay ISO-8859-1 text (the header's historical charset, RFC 9110 section
 * 5.5). A value the Lambda shape's event carries already decoded is left as it is, since its
 * characters are not UTF-8 bytes (it holds one past U+00FF, or a Latin-1 letter not followed by
 * continuation bytes); only text that happens to look like UTF-8 read as ISO-8859-1 ("Ã©") would
 * be misread.
 */
public final class HeaderField implements DeliveryField {

    private final String header;
    private final List<String> aliases;

    /** @param header the header name, e.g. X-GitHub-Delivery */
    public HeaderField(String header) {
        this(header, List.of());
    }

    /**
     * @param header  the header name
     * @param aliases other names read, in order, when {@code header} is absent
     */
    public HeaderField(String header, List<String> aliases) {
        this.header = header;
        this.aliases = List.copyOf(aliases);
    }

    @Override
    public String read(Delivery delivery) {
        String v = delivery.header(header);
        for (int i = 0; v == null && i < aliases.size(); i++) {
            v = delivery.header(aliases.get(i));
        }
        return v == null || v.isBlank() ? null : utf8(v.trim());
    }

    /**
     * The text whose UTF-8 bytes {@code v} carries one per character; {@code v} itself when it is
     * ASCII, when it holds a character past U+00FF, or when its characters as bytes are not UTF-8.
     */
    private static String utf8(String v) {
        boolean ascii = true;
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c > 0xFF) {
                return v;
            }
            ascii &= c < 0x80;
        }
        if (ascii) {
            return v;
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(v.getBytes(StandardCharsets.ISO_8859_1)))
                    .toString();
        } catch (CharacterCodingException e) {
            return v;
        }
    }

    @Override
    public String name() {
        return header;
    }
}
