package dev.exactly.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.ToIntFunction;

/**
 * Layer 1 of deduplication: settles duplicates inside one request, first-wins, in memory.
 *
 * <p>Items are keyed by queue, partition and transactionId (on a queue that spreads by key, whose
 * partition follows from the key, by queue and transactionId). The first occurrence
 * of a key leads and goes to the store; later ones are followers that inherit the leader's final
 * verdict as duplicates, also when the leader itself turns out to duplicate a stored message.
 * Leaders are grouped into one {@link Segment} per partition, keeping arrival order. Every item's
 * payload digest ({@link PayloadDigest}) is kept, so that a follower whose payload differs from
 * its original's is told so ({@link PushVerdict#payloadMatches()}).
 * (Reference: the "three layers, one authority" design, layer 1.)
 */
public final class RequestGrouping {

    /**
     * What layer 1 compares: an item's queue, its partition (null on a queue that spreads by key)
     * and its transactionId. The items of one queue share one queue string, whose hash is then
     * computed once, so an item's key costs the hash of its transactionId.
     */
    private record ItemKey(String queue, String partition, String transactionId) {
    }

    private final List<Segment> segments;
    private final int[] leaderOf;
    private final byte[][] digests;

    private RequestGrouping(List<Segment> segments, int[] leaderOf, byte[][] digests) {
        this.segments = segments;
        this.leaderOf = leaderOf;
        this.digests = digests;
    }

    /**
     * Groups a request's items, every queue taken as not spreading by key (each item goes to the
     * partition it names).
     *
     * @param commands the items, in request order
     * @return the leaders by partition, and for every item the index of its leader (itself for a leader)
     */
    public static RequestGrouping of(List<PushCommand> commands) {
        return of(commands, q -> 0);
    }

    /**
     * Groups a request's items, routing those of a queue that spreads by key to the key's
     * partition ({@link KeySpread}). The route is a function of the key, so layer 1 keys such an
     * item by queue and transactionId, and a follower is never hashed.
     *
     * @param commands the items, in request order
     * @param spreadOf each queue's spreadPartitions as the caller believes it (0: not spread); every
     *                 segment carries the value it was routed with
     * @return the leaders by partition, and for every item the index of its leader (itself for a leader)
     * @throws PartitionNamedException for the first item that names a partition on a spreading queue
     */
    public static RequestGrouping of(List<PushCommand> commands, ToIntFunction<String> spreadOf) {
        int n = commands.size();
        int[] leaderOf = new int[n];
        byte[][] digests = new byte[n][];
        Map<ItemKey, Integer> firstByKey = new HashMap<>(Math.max(16, n * 2));
        Map<PartitionKey, List<PushItem>> byPartition = new LinkedHashMap<>();
        Map<PartitionKey, Integer> spreadByPartition = null;
        String lastQueue = null;
        int spread = 0;
        for (int i = 0; i < n; i++) {
            PushCommand c = commands.get(i);
            if (!c.queue().equals(lastQueue)) {
                lastQueue = c.queue();
                spread = spreadOf.applyAsInt(lastQueue);
            }
            String queue = lastQueue; // equal to c.queue(), shared with the items before it
            if (spread > 0 && c.partitionNamed()) {
                throw new PartitionNamedException(i, c.queue(), c.partition(), spread);
            }
            UUID messageId = MessageIds.next();
            digests[i] = PayloadDigest.of(c.payload());
            String txn = c.transactionId();
            boolean explicit = txn != null;
            if (explicit) {
                Integer first = firstByKey.putIfAbsent(new ItemKey(queue, spread > 0 ? null : c.partition(), txn), i);
                if (first != null) {
                    leaderOf[i] = first;
                    continue;
                }
            } else {
                txn = messageId.toString();
            }
            leaderOf[i] = i;
            byte[] hash = TransactionHash.of(txn);
            PushItem item = new PushItem(i, c, messageId, txn, hash, explicit, digests[i]);
            PartitionKey key = new PartitionKey(queue, spread > 0 ? KeySpread.partitionOf(hash, spread) : c.partition());
            byPartition.computeIfAbsent(key, k -> new ArrayList<>()).add(item);
            if (spread > 0) {
                if (spreadByPartition == null) {
                    spreadByPartition = new HashMap<>();
                }
                spreadByPartition.put(key, spread);
            }
        }
        List<Segment> segments = new ArrayList<>(byPartition.size());
        Map<PartitionKey, Integer> spreads = spreadByPartition;
        byPartition.forEach((k, items) -> segments.add(
                new Segment(k, items, spreads == null ? 0 : spreads.getOrDefault(k, 0))));
        return new RequestGrouping(segments, leaderOf, digests);
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
     * Whether item {@code i}'s payload has the same bytes as its leader's (a follower of layer 1
     * compared with the item it repeats).
     *
     * @param i an item index
     * @return true when the payload digests are equal (always true for a leader itself)
     */
    public boolean samePayloadAsLeader(int i) {
        return Arrays.equals(digests[i], digests[leaderOf[i]]);
    }

    /**
     * Assembles the request's verdicts in input order from the leaders' verdicts, followers'
     * payloads compared with nothing (payloadMatches unknown).
     *
     * @param leaderVerdicts verdicts indexed by item index; only leader slots need to be set
     * @return one verdict per item; followers carry their leader's message id as duplicates
     */
    public List<PushVerdict> assemble(PushVerdict[] leaderVerdicts) {
        return assemble(leaderVerdicts, new byte[leaderOf.length][], new boolean[leaderOf.length]);
    }

    /**
     * Assembles the request's verdicts in input order from the leaders' verdicts; a follower's
     * payload is compared with the payload its leader's message id stands for.
     *
     * @param leaderVerdicts verdicts indexed by item index; only leader slots need to be set
     * @param references     indexed by item index, leader slots: the payload digest of the message
     *                       the leader's verdict names (its own for a stored leader, the
     *                       original's for a duplicate; null when not known)
     * @param reject         indexed by item index, leader slots: true when the leader's queue
     *                       rejects a payload mismatch
     * @return one verdict per item; followers carry their leader's message id as duplicates, or
     *         as rejected when their payload differs and the queue rejects mismatches
     */
    public List<PushVerdict> assemble(PushVerdict[] leaderVerdicts, byte[][] references, boolean[] reject) {
        List<PushVerdict> out = new ArrayList<>(leaderOf.length);
        for (int i = 0; i < leaderOf.length; i++) {
            int l = leaderOf[i];
            out.add(l == i ? leaderVerdicts[i]
                    : leaderVerdicts[l].inheritedBy(i, PayloadDigest.matches(digests[i], references[l]), reject[l]));
        }
        return out;
    }
}
