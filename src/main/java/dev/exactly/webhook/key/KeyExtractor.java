package dev.exactly.webhook.key;

import dev.exactly.webhook.Delivery;

/** Derives a delivery's deduplication key (the stored message's transactionId). Thread-safe. */
public interface KeyExtractor {

    /**
     * @return the key, never null
     * @throws dev.exactly.problem.ApiProblem 400 naming the field when the delivery does not carry the key
     */
    String key(Delivery delivery);

    /** The key's source for messages and logs: a header name, a pointer, or "content-hash". */
    String describe();
}
