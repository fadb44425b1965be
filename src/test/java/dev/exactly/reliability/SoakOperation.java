package dev.exactly.reliability;

import java.util.Random;

/**
 * One kind of client traffic in a soak or a fault test. An operation is what a well-behaved
 * client does: it sends a request and, on a transient failure (503, a lost connection, a
 * discarded instance), retries the SAME request (same idempotency keys) until it gets an answer
 * or the run's deadline passes; it records what it was told in its ledger and counts the
 * transient failures it rode out in {@link SoakStats}.
 *
 * <p>To add traffic (pop/ack, tasks, webhooks), implement this interface, record what clients
 * were told, and compare it with the database in {@link #audit}. Lost and duplicated figures
 * added there are asserted to be 0 with the push ledger's.
 */
interface SoakOperation {

    /** A short name for the report, e.g. "push-http". */
    String name();

    /**
     * Performs one operation, retrying transient failures as described above.
     *
     * @param rnd   this client's random source
     * @param stats where to count the operation, its retries and any error
     * @throws Exception only for an unexpected answer (a bug): the soak counts it as an error
     */
    void run(Random rnd, SoakStats stats) throws Exception;

    /**
     * Compares this operation's own ledger with the database, after the traffic stopped and the
     * database is back. Push operations share {@link PushLedger}, audited by the soak itself.
     *
     * @param stats where to add lost / duplicated findings and report lines
     */
    default void audit(SoakStats stats) throws Exception {
    }
}
