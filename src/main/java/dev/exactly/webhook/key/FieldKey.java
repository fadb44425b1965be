package dev.exactly.webhook.key;

import dev.exactly.webhook.Delivery;

/** The key is a header's value or the value at a JSON Pointer (GitHub X-GitHub-Delivery, Stripe /id, ...). */
public final class FieldKey implements KeyExtractor {

    private final DeliveryField field;

    /** @param field where the key is */
    public FieldKey(DeliveryField field) {
        this.field = field;
    }

    @Override
    public String key(Delivery delivery) {
        String v = field.read(delivery);
        if (v == null) {
            throw new MissingKey(field.name());
        }
        return v;
    }

    @Override
    public String describe() {
        return field.name();
    }
}
