package dev.exactly.webhook.key;

import dev.exactly.engine.PushCommand;
import dev.exactly.problem.ApiProblem;
import dev.exactly.naming.Names;
import dev.exactly.webhook.Delivery;

/**
 * Chooses a delivery's partition: a fixed name, or the value of a header or JSON Pointer (which
 * must then be a valid partition name: 1 to 255 characters of [A-Za-z0-9._:-]). Thread-safe.
 */
public final class PartitionSelector {

    private final String fixed;
    private final DeliveryField field;

    private PartitionSelector(String fixed, DeliveryField field) {
        this.fixed = fixed;
        this.field = field;
    }

    /** Every delivery goes to the partition {@code name} (already validated). */
    public static PartitionSelector fixed(String name) {
        return new PartitionSelector(name, null);
    }

    /** Each delivery goes to the partition named by {@code field}. */
    public static PartitionSelector from(DeliveryField field) {
        return new PartitionSelector(null, field);
    }

    /**
     * @return the partition name
     * @throws ApiProblem 400 naming the field when it is missing or not a valid partition name
     */
    public String partition(Delivery delivery) {
        if (field == null) {
            return fixed;
        }
        String v = field.read(delivery);
        if (v == null) {
            throw ApiProblem.invalid(null, field.name(), "is required: it names this source's partition");
        }
        String reason = Names.checkName(v);
        if (reason != null) {
            throw ApiProblem.invalid(null, field.name(), "names the partition, so it " + reason);
        }
        return v;
    }

    /**
     * @return true when the source chooses the partition (a header, a pointer, or a fixed name
     *         other than Default): a queue that spreads by key spreads its deliveries anyway, and
     *         the source is named in a warning; false for the default
     */
    public boolean named() {
        return field != null || !PushCommand.DEFAULT_PARTITION.equals(fixed);
    }

    /** For logs: the fixed name, or the field it reads. */
    public String describe() {
        return field == null ? fixed : field.name();
    }
}
