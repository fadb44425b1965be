package dev.exactly.engine;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Layer 1 of deduplication: settles duplicates inside one request, first-wins, in memory.
 *
 * <p>Items are keyed by {@code queue \u001f partition \u001f transactionId}. The first occurrence
 * of a key leads and goes to the store; later ones are followers that inherit the leader's final
 * verdict as duplicates, also when the leader itself turns out to duplicate a stored message.
 * Leaders are grouped into one {@link Segment} per partition, keeping arrival order.
 * (Reference: the "three layers, one authority" design, layer 1.)
 */
public final class RequestGrouping {

    private static final char SEP = '\u001f';

    private final List<Segment> segments;
    private final int[] leaderOf;

    private RequestGrouping(List<Segment> segments, int[] leaderOf) {
        this.segments = segments;
        this.leaderOf = leaderOf;
    }

    /**
     * Groups a request's items.
     *
     * @param commands the items, in request order
     * @return the leaders by partition, and for every item the index of its leader (itself for a leader)
     */
    public static RequestGrouping of(List<PushCommand> commands) {
        int n = commands.size();
        int[] leaderOf = new int[n];
        Map<String, Integer> firstByKey = new HashMap<>(Math.max(16, n * 2));
        Map<PartitionKey, List<PushItem>> byPartition = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            PushCommand c = commands.get(i);
            UUID messageId = MessageIds.next();
            String txn = c.transactionId();
            boolean explicit = txn != null;
            if (explicit) {
                Integer first = firstByKey.putIfAbsent(c.queue() + SEP + c.partition() + SEP + txn, i);
                if (first != null) {
                    leaderOf[i] = first;
                    continue;
                }
            } else {
                txn = messageId.toString();
            }
            leaderOf[i] = i;
            PushItem item = new PushItem(i, c, messageId, txn, TransactionHash.of(txn), explicit);
            byPartition.computeIfAbsent(new PartitionKey(c.queue(), c.partition()), k -> new ArrayList<>()).add(item);
        }
        List<Segment> segments = new ArrayList<>(byPartition.size());
        byPartition.forEach((k, items) -> segments.add(new Segment(k, items)));
        return new RequestGrouping(segments, leaderOf);
    }

    /** The leaders, one segment per partition, in order of each partition's first appearance. */
    public List<Segment> segments() {
        return segments;
    }

    /** Number of items in the request, leaders and followers. */
    public int size() {
        return leaderOf.length;
    }

    /** The index of the leader whose verdict item {@code i} takes (i itself for a leader). */
    public int leaderOf(int i) {
        return leaderOf[i];
    }

    /**
     * Assembles the request's verdicts in input order from the leaders' verdicts.
     *
     * @param leaderVerdicts verdicts indexed by item index; only leader slots need to be set
     * @return one verdict per item; followers carry their leader's message id as duplicates
     */
    public List<PushVerdict> assemble(PushVerdict[] leaderVerdicts) {
        List<PushVerdict> out = new ArrayList<>(leaderOf.length);
        for (int i = 0; i < leaderOf.length; i++) {
            int l = leaderOf[i];
            out.add(l == i ? leaderVerdicts[i] : leaderVerdicts[l].inheritedBy(i));
        }
        return out;
    }
}
