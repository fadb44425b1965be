package dev.exactly.webhook.key;

import dev.exactly.problem.ApiProblem;
import dev.exactly.webhook.Delivery;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A request header's value (names compare case-insensitively; a header sent on several lines is
 * read as its lines joined by ",", {@link dev.exactly.http.FieldLines}), or, when it is absent, the
 * value of the first alias present (Svix's svix-id for webhook-id). The value's bytes are read as
 * UTF-8, so that a non-ASCII id is the text its sender meant, as the push API would store it (the
 * HTTP layer hands each byte over as one ISO-8859-1 character); a value whose bytes are not UTF-8
 * is refused.
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

    /**
     * @throws ApiProblem 400 naming the header when its bytes are not UTF-8
     */
    @Override
    public String read(Delivery delivery) {
        String name = header;
        String v = delivery.header(header);
        for (int i = 0; v == null && i < aliases.size(); i++) {
            name = aliases.get(i);
            v = delivery.header(name);
        }
        return v == null || v.isBlank() ? null : utf8(name, v.trim());
    }

    /**
     * The text whose UTF-8 bytes {@code v} carries one per character; {@code v} itself when it is
     * ASCII, or when it holds a character past U+00FF (then it was decoded already).
     */
    private static String utf8(String name, String v) {
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
            throw ApiProblem.invalid(null, name, "must be UTF-8 text: its bytes are not UTF-8");
        }
    }

    @Override
    public String name() {
        return header;
    }
}
