package dev.exactly.engine.cache;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Iterator;

/**
 * One partition's resident transaction hashes: a time-ordered ring of immutable, sorted blocks of
 * {@value #BLOCK_HASHES} 16-byte hashes, plus one mutable arrival-order hot buffer.
 *
 * <p>A hash is stored as two longs (high 64 bits, then low 64 bits, as {@link
 * dev.exactly.engine.TransactionHash} lays out its bytes big-endian). The hot buffer grows by
 * doubling from {@value #FIRST_HOT_HASHES} hashes and is sealed the instant it holds {@value
 * #BLOCK_HASHES}: it is sorted in place and handed to the ring without a copy, so the largest single
 * allocation this structure ever makes is one block (a {@code long[8192]}, 64 KiB). There is no
 * per-hash map and no refcount: a hash lives independently in every block that holds it.
 *
 * <p>Membership is a binary search per sealed block and a linear scan of the hot buffer. Each
 * sealed block carries a fence index of {@value #INDEX_BITS} bits (the position where each value of
 * a hash's top bits starts, 2 KiB per block, about 0.5 byte per hash), so the search inside a block
 * starts from a handful of candidates instead of 4096: about two cache misses per block. A batch
 * lookup ({@link #containsAny}) walks the blocks once and searches every probed hash in each, while
 * the block is in cache. Expiry
 * ({@link #expireBefore}) drops whole blocks from the front only when the newest hash of the block
 * is older than the cutoff, so the resident set is always a superset of the hashes younger than the
 * cutoff. (Design: spec queen-deduplication.md, "How the hashes are stored".)
 *
 * <p>Not thread-safe: the owner (a partition entry of {@link WarmDedupCache}) guards it.
 */
public final class HashRing {

    /** Hashes per sealed block (a power of two, so sealing is a no-copy hand-off). */
    public static final int BLOCK_HASHES = 4096;

    /** Initial capacity of the hot buffer, in hashes. */
    public static final int FIRST_HOT_HASHES = 16;

    /** Accounted bytes of a Java array header. */
    static final long ARRAY_HEADER_BYTES = 16;

    /** Accounted bytes of one block besides its array: the Block object and its slot in the ring. */
    static final long BLOCK_OVERHEAD_BYTES = 48 + 8;

    /** Bits of a hash's high half that a block's fence index resolves. */
    static final int INDEX_BITS = 10;

    /** Accounted bytes of a block's fence index (a {@code char[1025]}). */
    static final long INDEX_BYTES = ARRAY_HEADER_BYTES + 2L * ((1 << INDEX_BITS) + 1);

    /** Accounted bytes of one full sealed block: 65,536 bytes of hashes, its index, overheads. */
    public static final long FULL_BLOCK_BYTES = ARRAY_HEADER_BYTES + 16L * BLOCK_HASHES + INDEX_BYTES
            + BLOCK_OVERHEAD_BYTES;

    /** An immutable sorted block with its fence index. */
    private static final class Block {
        final long[] pairs;
        final int count;
        final char[] starts;
        final long maxTime;
        final long maxOffset;

        Block(long[] pairs, int count, long maxTime, long maxOffset) {
            this.pairs = pairs;
            this.count = count;
            this.maxTime = maxTime;
            this.maxOffset = maxOffset;
            // starts[b] = first position whose bucket is >= b (pairs are sorted, so buckets ascend)
            char[] st = new char[(1 << INDEX_BITS) + 1];
            int j = 0;
            for (int b = 0; b <= 1 << INDEX_BITS; b++) {
                while (j < count && bucket(pairs[2 * j]) < b) {
                    j++;
                }
                st[b] = (char) j;
            }
            this.starts = st;
        }

        boolean contains(long hi, long lo) {
            int b = bucket(hi);
            return PairSort.search(pairs, starts[b], starts[b + 1], hi, lo);
        }

        long bytes() {
            return ARRAY_HEADER_BYTES + 8L * pairs.length + INDEX_BYTES + BLOCK_OVERHEAD_BYTES;
        }
    }

    /** The top bits of a high half, in the pairs' signed order: 0 .. 2^INDEX_BITS - 1. */
    static int bucket(long hi) {
        return (int) (hi >> (64 - INDEX_BITS)) + (1 << (INDEX_BITS - 1));
    }

    private final ArrayDeque<Block> blocks = new ArrayDeque<>();
    private long[] hot;
    private int hotCount;
    private long hotMaxTime = Long.MIN_VALUE;
    private long hotMaxOffset = -1;
    private long sealedHashes;
    private long sealedBytes;

    /** An empty ring. */
    public HashRing() {
    }

    /**
     * Appends a hash (arrival order). Seals the hot buffer when it reaches {@value #BLOCK_HASHES}.
     *
     * @param hi     high 64 bits of the 16-byte hash
     * @param lo     low 64 bits
     * @param offset the offset the hash was stored at (bookkeeping only)
     * @param time   when it was stored, in the owner's clock (milliseconds); expiry compares against it
     */
    public void add(long hi, long lo, long offset, long time) {
        if (hot == null) {
            hot = new long[2 * FIRST_HOT_HASHES];
        } else if (2 * hotCount == hot.length) {
            hot = Arrays.copyOf(hot, hot.length * 2);
        }
        hot[2 * hotCount] = hi;
        hot[2 * hotCount + 1] = lo;
        hotCount++;
        if (time > hotMaxTime) {
            hotMaxTime = time;
        }
        if (offset > hotMaxOffset) {
            hotMaxOffset = offset;
        }
        if (hotCount == BLOCK_HASHES) {
            seal();
        }
    }

    /**
     * Appends a 16-byte hash.
     *
     * @param hash   16 bytes, big-endian (see {@link dev.exactly.engine.TransactionHash})
     * @param offset the offset it was stored at
     * @param time   when it was stored, in the owner's clock (milliseconds)
     */
    public void add(byte[] hash, long offset, long time) {
        add(high(hash), low(hash), offset, time);
    }

    /**
     * Seals the hot buffer as a block even if it is not full (used when another ring's content is
     * appended behind it). No-op when the hot buffer is empty.
     */
    void sealPartial() {
        if (hotCount > 0) {
            seal();
        }
    }

    private void seal() {
        PairSort.sort(hot, hotCount);
        Block b = new Block(hot, hotCount, hotMaxTime, hotMaxOffset);
        blocks.addLast(b);
        sealedHashes += hotCount;
        sealedBytes += b.bytes();
        hot = null;
        hotCount = 0;
        hotMaxTime = Long.MIN_VALUE;
        hotMaxOffset = -1;
    }

    /**
     * @param hi high 64 bits of the hash
     * @param lo low 64 bits
     * @return true when the hash is resident (in some block or in the hot buffer)
     */
    public boolean contains(long hi, long lo) {
        for (Iterator<Block> it = blocks.descendingIterator(); it.hasNext(); ) {
            if (it.next().contains(hi, lo)) {
                return true;
            }
        }
        long[] h = hot;
        for (int i = 0, n = 2 * hotCount; i < n; i += 2) {
            if (h[i] == hi && h[i + 1] == lo) {
                return true;
            }
        }
        return false;
    }

    /**
     * Batch membership: true when any of the probed hashes is resident. Walks the blocks once,
     * newest first, searching every probed hash in a block while it is in cache.
     *
     * @param probed pairs (high, low) of the hashes to look up
     * @param n      number of pairs in {@code probed}
     */
    public boolean containsAny(long[] probed, int n) {
        if (n == 0) {
            return false;
        }
        for (Iterator<Block> it = blocks.descendingIterator(); it.hasNext(); ) {
            Block b = it.next();
            for (int i = 0; i < n; i++) {
                if (b.contains(probed[2 * i], probed[2 * i + 1])) {
                    return true;
                }
            }
        }
        long[] h = hot;
        for (int j = 0, m = 2 * hotCount; j < m; j += 2) {
            long x = h[j];
            long y = h[j + 1];
            for (int i = 0; i < n; i++) {
                if (probed[2 * i] == x && probed[2 * i + 1] == y) {
                    return true;
                }
            }
        }
        return false;
    }

    /** @return true when the 16-byte hash is resident */
    public boolean contains(byte[] hash) {
        return contains(high(hash), low(hash));
    }

    /**
     * Drops, from the front, every block whose newest hash is older than the cutoff, and the hot
     * buffer too once no block is left and its newest hash is older than the cutoff. A block with
     * at least one hash at or after the cutoff stops the sweep, so every hash stored at or after
     * the cutoff stays resident.
     *
     * @param cutoff time in the owner's clock (milliseconds)
     * @return the number of hashes dropped
     */
    public long expireBefore(long cutoff) {
        long dropped = 0;
        while (!blocks.isEmpty() && blocks.peekFirst().maxTime < cutoff) {
            Block b = blocks.pollFirst();
            sealedHashes -= b.count;
            sealedBytes -= b.bytes();
            dropped += b.count;
        }
        if (blocks.isEmpty() && hotCount > 0 && hotMaxTime < cutoff) {
            dropped += hotCount;
            hot = null;
            hotCount = 0;
            hotMaxTime = Long.MIN_VALUE;
            hotMaxOffset = -1;
        }
        return dropped;
    }

    /**
     * Moves every hash of {@code later} behind this ring's hashes: this ring's hot buffer is sealed
     * (possibly partial), {@code later}'s blocks are appended in order and its hot buffer becomes
     * this ring's. {@code later} is left empty. Used to splice a delta hydration in.
     *
     * @param later hashes stored after every hash of this ring
     */
    void append(HashRing later) {
        if (later.hashes() == 0) {
            return;
        }
        sealPartial();
        for (Block b : later.blocks) {
            blocks.addLast(b);
            sealedHashes += b.count;
            sealedBytes += b.bytes();
        }
        hot = later.hot;
        hotCount = later.hotCount;
        hotMaxTime = later.hotMaxTime;
        hotMaxOffset = later.hotMaxOffset;
        later.blocks.clear();
        later.hot = null;
        later.hotCount = 0;
        later.sealedHashes = 0;
        later.sealedBytes = 0;
    }

    /** @return resident hashes (sealed blocks plus hot buffer) */
    public long hashes() {
        return sealedHashes + hotCount;
    }

    /** @return number of sealed blocks */
    public int blocks() {
        return blocks.size();
    }

    /** @return hashes in the hot buffer */
    public int hotHashes() {
        return hotCount;
    }

    /**
     * Accounted footprint in bytes: each block's array (16 bytes per hash slot plus header) and
     * overhead, and the hot buffer's allocated capacity. Dominated by the real 16 bytes per hash.
     */
    public long bytes() {
        return sealedBytes + (hot == null ? 0 : ARRAY_HEADER_BYTES + 8L * hot.length);
    }

    /** @return true when every sealed block is sorted and its index agrees (for tests) */
    boolean wellFormed() {
        for (Block b : blocks) {
            if (!PairSort.isSorted(b.pairs, b.count)) {
                return false;
            }
            for (int i = 0; i < b.count; i++) {
                int k = bucket(b.pairs[2 * i]);
                if (i < b.starts[k] || i >= b.starts[k + 1]) {
                    return false;
                }
            }
        }
        return true;
    }

    /** @return the largest single array this ring holds, in bytes (at most one block) */
    long largestArrayBytes() {
        long max = hot == null ? 0 : 8L * hot.length;
        for (Block b : blocks) {
            max = Math.max(max, 8L * b.pairs.length);
        }
        return max;
    }

    /** @return the highest offset resident, or -1 when empty */
    public long maxOffset() {
        long m = hotMaxOffset;
        Block last = blocks.peekLast();
        return last == null ? m : Math.max(m, last.maxOffset);
    }

    /** High 64 bits of a 16-byte big-endian hash. */
    public static long high(byte[] hash) {
        return longAt(hash, 0);
    }

    /** Low 64 bits of a 16-byte big-endian hash. */
    public static long low(byte[] hash) {
        return longAt(hash, 8);
    }

    private static long longAt(byte[] b, int at) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (b[at + i] & 0xffL);
        }
        return v;
    }
}
