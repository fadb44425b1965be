package dev.exactly.transaction;

import dev.exactly.consume.AckCommand;
import dev.exactly.consume.AckResult;
import dev.exactly.consume.ConsumeRepository;
import dev.exactly.db.BorrowedConnections;
import dev.exactly.db.DatabaseErrors;
import dev.exactly.engine.DedupCache;
import dev.exactly.engine.PartitionKey;
import dev.exactly.engine.PartitionNamedException;
import dev.exactly.engine.SpreadChangedException;
import dev.exactly.problem.ApiProblem;
import dev.exactly.engine.PushCommand;
import dev.exactly.engine.PushEngine;
import dev.exactly.engine.PushStatus;
import dev.exactly.engine.PushVerdict;
import dev.exactly.engine.RequestGrouping;
import dev.exactly.engine.Segment;
import dev.exactly.push.PushResult;
import dev.exactly.wiring.PayloadMismatchMetrics;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs a transaction's operations all-or-nothing in one database transaction.
 *
 * <p>Order inside the transaction, chosen for the global lock order (partition rows in
 * ascending id, then consumer cursor rows): first {@code exactly.ack_batch}, which locks the
 * push partitions together with any dead-letter partitions before the cursors, then
 * the engine's {@link PushEngine#pushWithin} on the same connection (its partition locks are
 * already held). Any push item that is a
 * duplicate (of a stored message, or of an earlier item of the transaction: layer 1,
 * {@link RequestGrouping}) and any ack that is not "acked" fails the transaction, which rolls
 * back everything with a {@link TransactionConflict} (409; 422 for a duplicate whose payload
 * differs in a queue whose payloadMismatch option is "reject"). Pushes inside a transaction always probe
 * the whole window ({@link DedupCache#PROBE_ALL}) and leave the warm cache untouched, since the
 * transaction may still roll back.
 */
@ApplicationScoped
public class TransactionService {

    /** Times a transaction runs again after a queue's spreadPartitions changed under it, at most. */
    static final int MAX_REROUTES = 3;

    private final Pool pool;
    private final PushEngine engine;
    private final ConsumeRepository consume;
    private final PayloadMismatchMetrics mismatches;

    /** Constructor injection. */
    public TransactionService(Pool pool, PushEngine engine, ConsumeRepository consume,
                              PayloadMismatchMetrics mismatches) {
        this.pool = pool;
        this.engine = engine;
        this.consume = consume;
        this.mismatches = mismatches;
    }

    /**
     * @param ops validated operations, in request order
     * @return one result per operation when everything committed
     * @throws TransactionConflict (as the Uni's failure) when a push item is a duplicate (or
     *                             rejected for a payload mismatch) or an ack is unresolved or
     *                             mismatches its lease; nothing is written
     * @throws dev.exactly.db.StoreUnavailableException (as the Uni's failure) when the database is away
     * @throws ApiProblem (as the Uni's failure, 400) when a push item names a partition on a queue
     *         that spreads by key
     */
    public Uni<TransactionResponse> run(List<TransactionOperation> ops) {
        return run(ops, 0);
    }

    /**
     * One attempt. A queue's spreadPartitions that changed since this instance learnt it rolls the
     * transaction back (nothing written, SpreadChangedException): the instance learns the stored
     * values and runs it again, up to three times.
     */
    private Uni<TransactionResponse> run(List<TransactionOperation> ops, int reroutes) {
        List<PushCommand> pushes = new ArrayList<>();
        List<int[]> pushAt = new ArrayList<>();
        List<AckCommand> acks = new ArrayList<>();
        List<Integer> ackAt = new ArrayList<>();
        for (int i = 0; i < ops.size(); i++) {
            TransactionOperation op = ops.get(i);
            if (op instanceof TransactionOperation.Push push) {
                for (int j = 0; j < push.items().size(); j++) {
                    pushes.add(push.items().get(j));
                    pushAt.add(new int[] {i, j});
                }
            } else if (op instanceof TransactionOperation.Ack ack) {
                acks.add(ack.ack());
                ackAt.add(i);
            }
        }
        return engine.group(pushes)
                .onFailure(PartitionNamedException.class).transform(e -> {
                    int[] at = pushAt.get(((PartitionNamedException) e).index());
                    return ApiProblem.invalid(null, "operations[" + at[0] + "].items[" + at[1] + "].partition",
                            e.getMessage());
                })
                .chain(grouping -> run(ops, pushes, pushAt, acks, ackAt, grouping))
                .onFailure(TransactionConflict.class).invoke(e -> count((TransactionConflict) e))
                .onFailure(e -> e instanceof SpreadChangedException && reroutes < MAX_REROUTES)
                .recoverWithUni(() -> engine.relearn(pushes).chain(() -> run(ops, reroutes + 1)));
    }

    /**
     * The transaction itself, once its pushes are grouped. An item that repeats an earlier item's
     * transactionId with the same payload fails it at once (409); one whose payload differs needs
     * its queue's payloadMismatch option, which the store tells: the transaction runs, and is
     * rolled back with 409 (report) or 422 (reject) once the verdicts are known.
     */
    private Uni<TransactionResponse> run(List<TransactionOperation> ops, List<PushCommand> pushes, List<int[]> pushAt,
                                         List<AckCommand> acks, List<Integer> ackAt, RequestGrouping grouping) {
        for (int k = 0; k < grouping.size(); k++) {
            int leader = grouping.leaderOf(k);
            if (leader != k) {
                if (!grouping.samePayloadAsLeader(k)) {
                    break; // settled by pushAll, with the queue's option
                }
                int[] at = pushAt.get(k);
                int[] first = pushAt.get(leader);
                return Uni.createFrom().failure(TransactionConflict.duplicateInTransaction(at[0], at[1],
                        pushes.get(k).transactionId(), first[0], first[1], true));
            }
        }
        List<PartitionKey> pushPartitions = grouping.segments().stream().map(Segment::partition).toList();
        return BorrowedConnections.withTransaction(pool, conn -> ackAll(conn, acks, ackAt, pushPartitions)
                        .flatMap(ackResults -> pushAll(conn, grouping, pushAt)
                                .map(verdicts -> respond(ops, verdicts, pushAt, ackResults, ackAt))))
                .onFailure().transform(DatabaseErrors.CLASSIFY);
    }

    /** Counts a rollback for a payload mismatch (a 409 duplicate with payloadMatches false, or a 422). */
    private void count(TransactionConflict c) {
        TransactionProblem p = c.problem();
        if (Boolean.FALSE.equals(p.payloadMatches())) {
            mismatches.count(PayloadMismatchMetrics.Entry.TRANSACTION, p.status() == 422);
        }
    }

    private Uni<List<AckResult>> ackAll(SqlConnection conn, List<AckCommand> acks, List<Integer> ackAt,
                                        List<PartitionKey> pushPartitions) {
        if (acks.isEmpty()) {
            return Uni.createFrom().item(List.of());
        }
        return consume.ack(conn, acks, pushPartitions).map(results -> {
            for (int i = 0; i < results.size(); i++) {
                AckResult r = results.get(i);
                if (!r.acked()) {
                    throw TransactionConflict.ack(ackAt.get(i), r.result(), r.detail(), acks.get(i).transactionId());
                }
            }
            return results;
        });
    }

    /**
     * The engine's verdicts; any duplicate of a stored message fails (and so rolls back) the
     * transaction: 409 with payloadMatches, or 422 when the queue rejects a payload mismatch and
     * the payload differs.
     */
    private Uni<List<PushVerdict>> pushAll(SqlConnection conn, RequestGrouping grouping, List<int[]> pushAt) {
        return engine.pushWithin(grouping, conn).map(verdicts -> {
            // items repeating an earlier item of the transaction first, as when they fail before it runs
            for (PushVerdict v : verdicts) {
                int leader = grouping.leaderOf(v.index());
                if (leader != v.index()) {
                    int[] at = pushAt.get(v.index());
                    int[] first = pushAt.get(leader);
                    if (v.status() == PushStatus.REJECTED) {
                        throw TransactionConflict.payloadMismatchInTransaction(at[0], at[1], v.transactionId(),
                                first[0], first[1]);
                    }
                    throw TransactionConflict.duplicateInTransaction(at[0], at[1], v.transactionId(), first[0],
                            first[1], grouping.samePayloadAsLeader(v.index()));
                }
            }
            for (PushVerdict v : verdicts) {
                int[] at = pushAt.get(v.index());
                if (v.status() == PushStatus.REJECTED) {
                    throw TransactionConflict.payloadMismatch(at[0], at[1], v.transactionId(), v.messageId());
                }
                if (v.status() == PushStatus.DUPLICATE) {
                    throw TransactionConflict.duplicate(at[0], at[1], v.transactionId(), v.messageId(),
                            v.payloadMatches());
                }
            }
            return verdicts;
        });
    }

    private static TransactionResponse respond(List<TransactionOperation> ops, List<PushVerdict> verdicts,
                                               List<int[]> pushAt, List<AckResult> ackResults, List<Integer> ackAt) {
        List<List<PushResult>> perOp = new ArrayList<>();
        for (int i = 0; i < ops.size(); i++) {
            perOp.add(new ArrayList<>());
        }
        for (int k = 0; k < verdicts.size(); k++) {
            PushVerdict v = verdicts.get(k);
            int[] at = pushAt.get(k);
            perOp.get(at[0]).add(PushResult.of(v, "operations[" + at[0] + "].items", at[1]));
        }
        AckResult[] acks = new AckResult[ops.size()];
        for (int i = 0; i < ackResults.size(); i++) {
            AckResult r = ackResults.get(i);
            acks[ackAt.get(i)] = new AckResult(ackAt.get(i), r.result(), r.queue(), r.partition(), r.offset(), r.messageId(),
                    r.transactionId(), r.outcome(), r.attempts(), r.deadLetterMessageId(), r.replay(), r.detail());
        }
        List<TransactionResponse.OperationResult> out = new ArrayList<>(ops.size());
        for (int i = 0; i < ops.size(); i++) {
            if (ops.get(i) instanceof TransactionOperation.Push) {
                out.add(new TransactionResponse.OperationResult(i, "push", perOp.get(i), null));
            } else {
                out.add(new TransactionResponse.OperationResult(i, "ack", null, acks[i]));
            }
        }
        return new TransactionResponse(out);
    }
}
