package dev.exactly.webhook.key;

import dev.exactly.webhook.Delivery;
import java.util.List;

/**
 * A request header's value (names compare case-insensitively; a header sent on several lines is
 * read as its lines joined by ",", {@link dev.exactly.http.FieldLines}), or, when it is absent, the
 * value of the first alias present (Svix's svix-id for webhook-id).
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
        return v == null || v.isBlank() ? null : v.trim();
    }

    @Override
    public String name() {
        return header;
    }
}
