package dev.exactly.engine;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Gives every pushed item an exact deduplication verdict: the one path of every push, whether it
 * enters by the push API, a webhook or a transaction.
 *
 * <p>Layer 1 ({@link RequestGrouping}) settles duplicates inside the request; the segment writer
 * sends the leaders on: directly ({@link DirectWriter}: the cache proposes a p_verified watermark
 * per segment, the store probes each partition's window under its row lock and stores the
 * non-duplicates, all segments of a request in one round trip), or through the server's fusion
 * layer (layer 2, {@link dev.exactly.engine.fusion.FusingWriter}). The store (layer 3) is the
 * only authority. A push inside a caller's transaction ({@link #pushWithin}) goes straight to the
 * store on the caller's connection. Thread-safe; holds no per-request state (the duplicate tally
 * is a shared counter).
 */
public final class PushEngine {

    /** Times a request is routed again after the store refused its spreadPartitions, at most. */
    static final int MAX_REROUTES = 3;

    private final SegmentWriter writer;
    private final PushRepository store;
    private final QueueSpreads spreads = new QueueSpreads();
    private final DuplicateTally duplicates;

    /**
     * An unfused engine.
     *
     * @param store the probe client of this instance
     * @param cache the warm cache, or {@link DedupCache#DISABLED} for a stateless instance
     */
    public PushEngine(PushRepository store, DedupCache cache) {
        this(new DirectWriter(store, cache), store);
    }

    /**
     * @param writer where leader segments go: {@link DirectWriter} or a fusing writer over one
     * @param store  the store under {@code writer}, used directly by pushes inside a caller's transaction
     */
    public PushEngine(SegmentWriter writer, PushRepository store) {
        this(writer, store, null);
    }

    /**
     * @param writer     where leader segments go: {@link DirectWriter} or a fusing writer over one
     * @param store      the store under {@code writer}, used directly by pushes inside a caller's transaction
     * @param duplicates where the duplicates {@link #push} answers are counted, by queue and minute; null for nowhere
     */
    public PushEngine(SegmentWriter writer, PushRepository store, DuplicateTally duplicates) {
        this.writer = writer;
        this.store = store;
        this.duplicates = duplicates;
    }

    /**
     * Pushes a request's items. Items of a queue that spreads by key go to their key's partition
     * ({@link KeySpread}); should the store find that a queue's spreadPartitions is not what this
     * instance believed (nothing is then written), the instance learns the stored values and
     * routes the request again, up to {@link #MAX_REROUTES} times. The duplicates among the
     * verdicts (of stored messages and of earlier items of the request alike) are counted in this
     * instance's {@link DuplicateTally}, in memory: nothing more is written for them.
     *
     * @param commands validated items, in request order (may be empty)
     * @return one verdict per item, in request order
     * @throws PartitionNamedException (as the Uni's failure, nothing written) when an item names a
     *         partition on a queue that spreads by key, as the database says (never on this
     *         instance's belief alone, see {@link #group})
     * @throws SpreadChangedException (as the Uni's failure, nothing written) when the option kept
     *         changing while the request was routed again
     * @throws dev.exactly.db.StoreUnavailableException (as the Uni's failure) when the database is away
     */
    public Uni<List<PushVerdict>> push(List<PushCommand> commands) {
        if (commands.isEmpty()) {
            return Uni.createFrom().item(List.of());
        }
        Uni<List<PushVerdict>> verdicts = push(commands, 0, false);
        return duplicates == null ? verdicts : verdicts.invoke(duplicates::record);
    }

    /**
     * One routing of the request.
     *
     * @param learnt true when this instance read the queues' spreadPartitions from the database
     *               for this very request (a refusal for a named partition is then final)
     */
    private Uni<List<PushVerdict>> push(List<PushCommand> commands, int reroutes, boolean learnt) {
        return group(commands, learnt).chain(grouping ->
                writer.write(grouping.segments()).map(outcomes -> verdicts(grouping, outcomes)))
                .onFailure(e -> e instanceof SpreadChangedException && reroutes < MAX_REROUTES)
                .recoverWithUni(() -> relearn(commands).chain(() -> push(commands, reroutes + 1, true)));
    }

    /**
     * Layer 1 of a request: what {@link #pushWithin} takes. Routed with this instance's belief of
     * each queue's spreadPartitions, which only the store may overrule for routing (EXS01). A
     * belief is never enough to refuse, though: when it would refuse an item for naming a
     * partition on a queue that spreads by key, the queues' values are read from the database
     * first (the queue may have stopped spreading through another instance) and the request is
     * grouped again with what was read.
     *
     * @param commands validated items, in request order
     * @return the grouping
     * @throws PartitionNamedException (as the Uni's failure) when an item names a partition on a
     *         queue that spreads by key, as the database says
     * @throws dev.exactly.db.StoreUnavailableException (as the Uni's failure) when the values must
     *         be read and the database is away
     */
    public Uni<RequestGrouping> group(List<PushCommand> commands) {
        return group(commands, false);
    }

    private Uni<RequestGrouping> group(List<PushCommand> commands, boolean learnt) {
        try {
            return Uni.createFrom().item(RequestGrouping.of(commands, spreads::of));
        } catch (PartitionNamedException e) {
            if (learnt) {
                return Uni.createFrom().failure(e);
            }
            return relearn(commands).map(ignored -> RequestGrouping.of(commands, spreads::of));
        }
    }

    /**
     * Learns the stored spreadPartitions of the commands' queues (after a {@link SpreadChangedException}).
     *
     * @param commands the items whose queues to read
     * @return completes once learnt
     */
    public Uni<Void> relearn(List<PushCommand> commands) {
        Set<String> queues = new HashSet<>();
        for (PushCommand c : commands) {
            queues.add(c.queue());
        }
        return spreads(queues).replaceWithVoid();
    }

    /**
     * Reads queues' spreadPartitions from the database, and learns them.
     *
     * @param queues queue names
     * @return name to spreadPartitions, every name present (0 for a queue that does not exist or does not spread)
     * @throws dev.exactly.db.StoreUnavailableException (as the Uni's failure) when the database is away
     */
    public Uni<Map<String, Integer>> spreads(Collection<String> queues) {
        return store.spreads(queues).invoke(spreads::learnt);
    }

    /**
     * Pushes already grouped items on a connection inside a transaction the caller owns (work that
     * must commit or roll back together with the push). Every segment probes its whole window
     * ({@link DedupCache#PROBE_ALL}); neither the warm cache nor fusion is involved, since the
     * transaction may still roll back (its duplicates are not counted in the tally either: the
     * transaction is refused for them). The partitions' row locks are held until the caller's
     * transaction ends; nothing is committed or retried here.
     *
     * @param grouping   the request's items after layer 1 ({@link #group})
     * @param connection a connection inside the caller's transaction
     * @return one verdict per item, in request order (followers of layer 1 as duplicates)
     * @throws SpreadChangedException (as the Uni's failure) when a queue's spreadPartitions is not
     *         what the grouping was routed with: the caller's transaction is lost; learn
     *         ({@link #relearn}), group and run it again
     * @throws dev.exactly.db.StoreUnavailableException (as the Uni's failure) when the database is away
     */
    public Uni<List<PushVerdict>> pushWithin(RequestGrouping grouping, SqlClient connection) {
        if (grouping.segments().isEmpty()) {
            return Uni.createFrom().item(List.of());
        }
        return store.push(grouping.segments(), connection).map(outcomes -> verdicts(grouping, outcomes));
    }

    /**
     * Each leader's verdict from its segment's outcome, then every item's, in request order. A
     * duplicate's payload digest is compared with its original's; a mismatch in a queue that
     * rejects mismatches makes it {@link PushStatus#REJECTED} (nothing was written for it either
     * way: the store decided duplicate, and a payload never changes that).
     */
    private static List<PushVerdict> verdicts(RequestGrouping grouping, List<SegmentOutcome> outcomes) {
        List<Segment> segments = grouping.segments();
        PushVerdict[] verdicts = new PushVerdict[grouping.size()];
        byte[][] references = new byte[grouping.size()][];
        boolean[] reject = new boolean[grouping.size()];
        for (int i = 0; i < segments.size(); i++) {
            Segment s = segments.get(i);
            SegmentOutcome o = outcomes.get(i);
            List<PushItem> items = s.items();
            for (int j = 0; j < items.size(); j++) {
                PushItem it = items.get(j);
                boolean dup = o.duplicate()[j];
                Boolean matches = dup ? PayloadDigest.matches(it.digest(), o.originalDigests()[j]) : null;
                PushStatus status = !dup ? PushStatus.QUEUED
                        : o.rejectMismatch() && Boolean.FALSE.equals(matches) ? PushStatus.REJECTED : PushStatus.DUPLICATE;
                verdicts[it.index()] = new PushVerdict(it.index(), s.partition().queue(), s.partition().partition(),
                        it.transactionId(), o.messageIds()[j], status, o.offsets()[j], matches);
                references[it.index()] = dup ? o.originalDigests()[j] : it.digest();
                reject[it.index()] = o.rejectMismatch();
            }
        }
        return grouping.assemble(verdicts, references, reject);
    }
}
