package dev.exactly.transaction;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.UUID;

/**
 * A 409 (or 422) problem details document (RFC 9457, application/problem+json) for a transaction that
 * was rolled back, with extension members naming the operation and item at fault.
 *
 * @param type              /problems/duplicate, /problems/payload-mismatch, /problems/unresolved or
 *                          /problems/lease-mismatch
 * @param title             short summary
 * @param status            409 (422 for /problems/payload-mismatch)
 * @param detail            this occurrence, for a person
 * @param operation         index of the operation at fault (0-based)
 * @param item              index of the item within a push operation, or null for an ack
 * @param transactionId     the item's or ack's transactionId, or null
 * @param originalMessageId for a duplicate of a stored message: the original message's id (the
 *                          zero UUID when its data was purged by retention)
 * @param duplicateOf       for a duplicate inside the transaction: the earlier item, e.g.
 *                          "operations[0].items[1]"
 * @param reason            "duplicate", "payload-mismatch", "unresolved" or "lease-mismatch"
 * @param payloadMatches    for a duplicate: whether the item's payload bytes equal the original's
 *                          (absent when not known: the original's data was purged)
 */
@RegisterForReflection
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TransactionProblem(String type, String title, int status, String detail, int operation, Integer item,
                                 String transactionId, UUID originalMessageId, String duplicateOf, String reason,
                                 Boolean payloadMatches) {
}
