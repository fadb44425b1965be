package dev.exactly.transaction;

import java.util.UUID;

/**
 * Thrown when a transaction must roll back as a whole: a push item turned out to be a duplicate
 * (of a stored message, or of an earlier item of the same transaction), or an ack was unresolved
 * or did not hold its lease. Answered with 409 problem+json ({@link TransactionProblem}).
 */
public class TransactionConflict extends RuntimeException {

    private final TransactionProblem problem;

    private TransactionConflict(TransactionProblem problem) {
        super(problem.detail());
        this.problem = problem;
    }

    /** A push item duplicates a message stored within its queue's deduplication window. */
    public static TransactionConflict duplicate(int operation, int item, String transactionId, UUID originalMessageId) {
        return new TransactionConflict(new TransactionProblem("/problems/duplicate", "Transaction rolled back", 409,
                "operations[" + operation + "].items[" + item + "] is a duplicate: transactionId '" + transactionId
                        + "' is already stored in its queue partition as message " + originalMessageId
                        + "; nothing of the transaction was applied",
                operation, item, transactionId, originalMessageId, null, "duplicate"));
    }

    /** A push item repeats the transactionId of an earlier item of the same transaction and partition. */
    public static TransactionConflict duplicateInTransaction(int operation, int item, String transactionId,
                                                             int leaderOperation, int leaderItem) {
        String original = "operations[" + leaderOperation + "].items[" + leaderItem + "]";
        return new TransactionConflict(new TransactionProblem("/problems/duplicate", "Transaction rolled back", 409,
                "operations[" + operation + "].items[" + item + "] is a duplicate of " + original
                        + " (same queue, partition and transactionId '" + transactionId
                        + "'); nothing of the transaction was applied",
                operation, item, transactionId, null, original, "duplicate"));
    }

    /** An ack could not be applied ("unresolved" or "lease-mismatch"). */
    public static TransactionConflict ack(int operation, String result, String detail, String transactionId) {
        return new TransactionConflict(new TransactionProblem("/problems/" + result, "Transaction rolled back", 409,
                "operations[" + operation + "] (ack) is " + result + ": " + detail
                        + "; nothing of the transaction was applied",
                operation, null, transactionId, null, null, result));
    }

    /** The problem document to send. */
    public TransactionProblem problem() {
        return problem;
    }
}
