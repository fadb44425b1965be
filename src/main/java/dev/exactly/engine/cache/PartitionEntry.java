package dev.exactly.engine.cache;

import dev.exactly.engine.PartitionKey;
import dev.exactly.engine.PushItem;
import dev.exactly.engine.SegmentOutcome;
import java.util.ArrayList;
import java.util.List;

/**
 * One partition's cache entry. Every field except the volatile ones is guarded by the entry's own
 * monitor; no other entry's lock is ever taken while holding it.
 *
 * <p>The validity rule: in state {@link State#READY} {@link #resident} holds every hash stored in the
 * partition at an offset at or below {@link #verifiedUpto} that is still inside a window of
 * {@link #window} seconds (plus the skew slack), and possibly more. Only then may the cache vouch
 * that none of a segment's hashes occurs at or below {@code verifiedUpto}.
 */
final class PartitionEntry {

    /** Accounted bytes of an entry besides its hashes: the entry, its map node and key. */
    static final long ENTRY_BYTES = 256;

    /** Window value of an entry whose queue did not exist when it was hydrated (content is empty). */
    static final int UNKNOWN_WINDOW = -1;

    enum State {
        /** Nothing known yet (or a load failed): answers -1; the next bound() starts a full load. */
        COLD,
        /** A full or delta load is in flight: answers -1; commits are buffered. */
        LOADING,
        /** Complete up to verifiedUpto: vouches unless a local hit or a stale memo. */
        READY,
        /** Disqualified (interleave gap, overlap, window change): answers -1 until a load succeeds. */
        STALE,
        /** Evicted: unreachable from the map; answers -1. */
        DEAD
    }

    /** A committed segment as the cache remembers it: its stored hashes and the store's facts. */
    record Commit(long partitionId, long prev, int window, int stored, long[] pairs, long[] offsets, long time) {

        static Commit of(List<PushItem> items, SegmentOutcome o, long time) {
            int stored = o.stored();
            long[] pairs = new long[2 * stored];
            long[] offsets = new long[stored];
            int k = 0;
            boolean[] dup = o.duplicate();
            for (int j = 0; j < dup.length; j++) {
                if (!dup[j]) {
                    byte[] h = items.get(j).hash();
                    pairs[2 * k] = ResidentHashes.high(h);
                    pairs[2 * k + 1] = ResidentHashes.low(h);
                    offsets[k] = o.offsets()[j];
                    k++;
                }
            }
            return new Commit(o.partitionId(), o.prevLastOffset(), o.windowSeconds(), stored, pairs, offsets, time);
        }

        /** The allocator watermark after this commit. */
        long end() {
            return prev + stored;
        }
    }

    final PartitionKey key;

    State state = State.COLD;
    /** Sticky: the next load must be a full hydration (cold, window change, overlap, incomplete delta). */
    boolean needsFull = true;
    long partitionId = -1;
    int window = UNKNOWN_WINDOW;
    long verifiedUpto = -1;
    /**
     * The allocator watermark of the last installed load's snapshot (-1 before any): every row at or
     * below it was read by that load, so a commit notice ending at or below it is already held.
     */
    long loadedUpto = -1;
    /** The resident hashes (replaced by a fresh set on a full hydration and on eviction). */
    ResidentHashes resident;
    /** When id, window and allocator watermark were last confirmed (hydration or commit). */
    long memoAt;
    /** A failed load is not retried before this time. */
    long retryAt = Long.MIN_VALUE;
    /** Bumped by every load start and by eviction: a load installs only if it still matches. */
    volatile int epoch;
    /** Bumped by queueReconfigured: a load that started before it must not leave the entry READY. */
    int configGen;
    List<Commit> buffered;
    boolean bufferOverflow;
    /** Most early notices a READY entry holds (WarmDedupCache's rule "Early notice"). */
    static final int MAX_EARLY = 4;

    /**
     * A READY entry's commit notices whose previous watermark lies above verifiedUpto, held in case
     * they overtook the notice of an earlier commit of this instance (WarmDedupCache's rule "Early
     * notice"), sorted by their previous watermark; null when none.
     */
    List<Commit> early;

    /** Bytes this entry adds to the cache's resident total (written under the lock, read by eviction). */
    volatile long accountedBytes;
    long accountedHashes;
    /** Last bound() or committed() touching this partition, in ticker milliseconds. */
    volatile long lastUsed;

    PartitionEntry(PartitionKey key, ResidentHashes resident) {
        this.key = key;
        this.resident = resident;
    }

    void buffer(Commit c, int max) {
        if (buffered == null) {
            buffered = new ArrayList<>();
        }
        if (buffered.size() < max) {
            buffered.add(c);
        } else {
            bufferOverflow = true;
        }
    }

    @Override
    public String toString() {
        return key + "[" + state + ", verifiedUpto=" + verifiedUpto + ", window=" + window + ", hashes="
                + (resident == null ? 0 : resident.hashes()) + (needsFull ? ", needsFull" : "") + "]";
    }
}
