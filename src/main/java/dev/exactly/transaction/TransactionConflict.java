package dev.exactly.transaction;

import java.util.UUID;

/**
 * Thrown when a transaction must roll back as a whole: a push item turned out to be a duplicate
 * (of a stored message, or of an earlier item of the same transaction), or an ack was unresolved
 * or did not hold its lease. Answered with 409 problem+json ({@link TransactionProblem}), or 422
 * for a duplicate whose payload differs in a queue whose payloadMismatch option is "reject".
 */
public class TransactionConflict extends RuntimeException {

    private final TransactionProblem problem;

    private TransactionConflict(TransactionProblem problem) {
        super(problem.detail());
        this.problem = problem;
    }

    /**
     * A push item duplicates a message stored within its queue's deduplication window.
     *
     * @param payloadMatches whether its payload equals the original's (null: unknown)
     */
    public static TransactionConflict duplicate(int operation, int item, String transactionId, UUID originalMessageId,
                                                Boolean payloadMatches) {
        return new TransactionConflict(new TransactionProblem("/problems/duplicate", "Transaction rolled back", 409,
                "operations[" + operation + "].items[" + item + "] is a duplicate: transactionId '" + transactionId
                        + "' is already stored in its queue partition as message " + originalMessageId
                        + (Boolean.FALSE.equals(payloadMatches) ? " with another payload" : "")
                        + "; nothing of the transaction was applied",
                operation, item, transactionId, originalMessageId, null, "duplicate", payloadMatches));
    }

    /**
     * A push item duplicates a stored message with another payload, in a queue whose
     * payloadMismatch option is "reject": 422, as the IETF Idempotency-Key draft answers a key
     * reused with another payload.
     */
    public static TransactionConflict payloadMismatch(int operation, int item, String transactionId,
                                                      UUID originalMessageId) {
        return new TransactionConflict(new TransactionProblem("/problems/payload-mismatch", "Transaction rolled back",
                422, "operations[" + operation + "].items[" + item + "]: transactionId '" + transactionId
                        + "' is already stored in its queue partition as message " + originalMessageId
                        + " with another payload, and the queue rejects a payload mismatch; nothing of the "
                        + "transaction was applied",
                operation, item, transactionId, originalMessageId, null, "payload-mismatch", false));
    }

    /**
     * A push item repeats the transactionId of an earlier item of the same transaction and
     * partition with another payload, in a queue whose payloadMismatch option is "reject": 422,
     * as for a key already stored with another payload.
     */
    public static TransactionConflict payloadMismatchInTransaction(int operation, int item, String transactionId,
                                                                   int leaderOperation, int leaderItem) {
        String original = "operations[" + leaderOperation + "].items[" + leaderItem + "]";
        return new TransactionConflict(new TransactionProblem("/problems/payload-mismatch", "Transaction rolled back",
                422, "operations[" + operation + "].items[" + item + "]: transactionId '" + transactionId
                        + "' repeats " + original + " of this transaction (same queue and partition) with another "
                        + "payload, and the queue rejects a payload mismatch; nothing of the transaction was applied",
                operation, item, transactionId, null, original, "payload-mismatch", false));
    }

    /** A push item repeats the transactionId of an earlier item of the same transaction and partition. */
    public static TransactionConflict duplicateInTransaction(int operation, int item, String transactionId,
                                                             int leaderOperation, int leaderItem,
                                                             boolean samePayload) {
        String original = "operations[" + leaderOperation + "].items[" + leaderItem + "]";
        return new TransactionConflict(new TransactionProblem("/problems/duplicate", "Transaction rolled back", 409,
                "operations[" + operation + "].items[" + item + "] is a duplicate of " + original
                        + " (same queue, partition and transactionId '" + transactionId
                        + "'" + (samePayload ? "" : ", another payload") + "); nothing of the transaction was applied",
                operation, item, transactionId, null, original, "duplicate", samePayload));
    }

    /** An ack could not be applied ("unresolved" or "lease-mismatch"). */
    public static TransactionConflict ack(int operation, String result, String detail, String transactionId) {
        return new TransactionConflict(new TransactionProblem("/problems/" + result, "Transaction rolled back", 409,
                "operations[" + operation + "] (ack) is " + result + ": " + detail
                        + "; nothing of the transaction was applied",
                operation, null, transactionId, null, null, result, null));
    }

    /** The problem document to send. */
    public TransactionProblem problem() {
        return problem;
    }
}
