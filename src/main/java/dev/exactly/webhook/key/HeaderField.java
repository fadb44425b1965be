package dev.exactly.webhook.key;

import dev.exactly.webhook.Delivery;

/** A request header's first value (names compare case-insensitively). */
public final class HeaderField implements DeliveryField {

    private final String header;

    /** @param header the header name, e.g. X-GitHub-Delivery */
    public HeaderField(String header) {
        this.header = header;
    }

    @Override
    public String read(Delivery delivery) {
        String v = delivery.header(header);
        return v == null || v.isBlank() ? null : v.trim();
    }

    @Override
    public String name() {
        return header;
    }
}
