package dev.exactly.webhook.key;

import dev.exactly.webhook.Delivery;

/** A value read from a delivery: a header or a JSON Pointer into the body. Thread-safe. */
public interface DeliveryField {

    /**
     * @return the value as text, or null when the delivery does not carry it
     * @throws dev.exactly.problem.ApiProblem 400 when the body must be JSON and is not, or the value is not a scalar
     */
    String read(Delivery delivery);

    /** The field's name for error messages and problem documents: the header name or the pointer. */
    String name();
}
